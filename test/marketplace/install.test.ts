import { describe, expect, it } from 'vitest';
import { createTestUser, invoke } from '../support/lambda.ts';
import { expectError, publish } from './helpers.ts';

const installsOf = async (user: any, id: string) =>
  (await invoke('getTemplate', { caller: user, params: { id } })).body.stats.installs;

describe('POST /templates/:id/install', () => {
  it('201 on the first install, 200 with the same body after, counting once', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await publish(author);
    const first = await invoke('installTemplate', { caller: user, params: { id: t.slug } });
    expect(first.status).toBe(201);
    expect(first.body).toEqual({
      template_id: t.id,
      workspace_id: user.workspaceId,
      version: '1.0.0',
      policy: 'minor',
      installed_at: expect.stringMatching(/Z$/),
    });
    const again = await invoke('installTemplate', { caller: user, params: { id: t.id } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(await installsOf(user, t.id)).toBe(1);
  });

  it("says on the template's page what the caller has done with it: author, installed, reviewed", async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await publish(author);
    const viewer = async (caller: typeof user) =>
      (await invoke('getTemplate', { caller, params: { id: t.id } })).body.viewer;
    expect(await viewer(author)).toEqual({ author: true, installed: false, reviewed: false });
    expect(await viewer(user)).toEqual({ author: false, installed: false, reviewed: false });
    await invoke('installTemplate', { caller: user, params: { id: t.id } });
    expect(await viewer(user)).toEqual({ author: false, installed: true, reviewed: false });
    const reviewed = await invoke('createReview', {
      caller: user,
      params: { id: t.id },
      body: { rating: 4, title: 'Fine' },
    });
    expect(reviewed.status).toBe(201);
    expect(await viewer(user)).toEqual({ author: false, installed: true, reviewed: true });
    expect(await viewer(author)).toEqual({ author: true, installed: false, reviewed: false });
  });

  it('counts exactly +50 for 50 concurrent installs from 50 workspaces', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const users = await Promise.all(Array.from({ length: 50 }, () => createTestUser()));
    const results = await Promise.all(users.map((u) => invoke('installTemplate', { caller: u, params: { id: t.id } })));
    // Every answer a 201; any other shows with its body, so a failure names its cause.
    expect(results.filter((r) => r.status !== 201).map((r) => ({ status: r.status, body: r.body }))).toEqual([]);
    expect(results).toHaveLength(50);
    expect(await installsOf(author, t.id)).toBe(50);
  });

  it('counts exactly +1 for 20 concurrent installs from one workspace (one 201, nineteen 200)', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await publish(author);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => invoke('installTemplate', { caller: user, params: { id: t.id } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([...Array(19).fill(200), 201].sort());
    expect(new Set(results.map((r) => r.body.installed_at)).size).toBe(1);
    expect(await installsOf(author, t.id)).toBe(1);
  });

  it('lets only the author install a private template; others get 404; unlisted is installable', async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const priv = await publish(author, { visibility: 'private' });
    const unlisted = await publish(author, { visibility: 'unlisted' });
    expect((await invoke('installTemplate', { caller: author, params: { id: priv.id } })).status).toBe(201);
    expectError(await invoke('installTemplate', { caller: other, params: { id: priv.id } }), 404, 'not_found');
    expectError(await invoke('installTemplate', { caller: other, params: { id: 'nope nope' } }), 404, 'not_found');
    expect((await invoke('installTemplate', { caller: other, params: { id: unlisted.slug } })).status).toBe(201);
  });

  it('refuses a body', async () => {
    const user = await createTestUser();
    const t = await publish(user);
    expectError(
      await invoke('installTemplate', { caller: user, params: { id: t.id }, body: { x: 1 } }),
      400,
      'validation_error',
    );
  });
});

describe('GET /installed', () => {
  it("lists the workspace's templates, newest install first, hiding ones gone private to others", async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const [a, b, c] = [await publish(author), await publish(author), await publish(author)];
    for (const t of [a, b, c]) await invoke('installTemplate', { caller: user, params: { id: t.id } });
    const res = await invoke('listInstalled', { caller: user });
    expect(res.status).toBe(200);
    expect(res.body.data.map((s: any) => s.id)).toEqual([c.id, b.id, a.id]);
    expect(res.body.data[0]).not.toHaveProperty('schema');
    expect(res.body.data[0].stats.installs).toBe(1);

    await invoke('updateTemplate', { caller: author, params: { id: b.id }, body: { visibility: 'private' } });
    expect((await invoke('listInstalled', { caller: user })).body.data.map((s: any) => s.id)).toEqual([c.id, a.id]);

    // Paging with limit 1: a hidden template leaves its page short, the cursor still goes on.
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let pages = 0; pages < 5; pages++) {
      const page = await invoke('listInstalled', {
        caller: user,
        query: { limit: '1', ...(cursor ? { cursor } : {}) },
      });
      seen.push(...page.body.data.map((s: any) => s.id));
      cursor = page.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    expect(seen).toEqual([c.id, a.id]);
    expect((await invoke('listInstalled', { caller: await createTestUser() })).body).toEqual({
      data: [],
      next_cursor: null,
    });
  });
});
