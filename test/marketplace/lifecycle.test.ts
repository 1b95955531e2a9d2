import { describe, expect, it } from 'vitest';
import { createAgent, createContract, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { expectError, publish } from './helpers.ts';

const change = (caller: TestUser, id: string, version: string, body: unknown) =>
  invoke('changeVersion', { caller, params: { id, version }, body });

async function withVersions(author: TestUser, versions: string[]) {
  const t = await publish(author, { version: versions[0], schema: SIMPLE_SCHEMA });
  for (const version of versions.slice(1)) {
    const res = await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version, schema: SIMPLE_SCHEMA },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
  }
  return t;
}

const details = async (caller: TestUser, id: string) => (await invoke('getTemplate', { caller, params: { id } })).body;
const listedIds = async (caller: TestUser) =>
  (await invoke('listTemplates', { caller, query: { sort: 'recent', limit: '100' } })).body.data.map((t: any) => t.id);

describe('PATCH /templates/:id/versions/:version', () => {
  it('deprecates with a message: still installable, shown in details and lists; null takes it back', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await withVersions(author, ['1.0.0', '1.1.0']);
    const res = await change(author, t.id, '1.1.0', { deprecated: 'Use 2.x: the check URL moved.' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      version: '1.1.0',
      deprecated: { message: 'Use 2.x: the check URL moved.', at: expect.stringMatching(/Z$/) },
      yanked_at: null,
      current_version: '1.1.0',
    });
    const seen = await details(user, t.id);
    expect(seen.deprecated).toBe('Use 2.x: the check URL moved.');
    expect(seen.versions[0]).toMatchObject({
      version: '1.1.0',
      deprecated: { message: 'Use 2.x: the check URL moved.' },
    });
    expect(seen.versions[1]).toMatchObject({ version: '1.0.0', deprecated: null });
    const listed = (await invoke('listTemplates', { caller: user, query: { sort: 'recent', limit: '100' } })).body.data;
    expect(listed.find((x: any) => x.id === t.id).deprecated).toBe('Use 2.x: the check URL moved.');
    expect((await invoke('installTemplate', { caller: user, params: { id: t.id } })).status).toBe(201);

    const undone = await change(author, t.id, '1.1.0', { deprecated: null });
    expect(undone.body.deprecated).toBeNull();
    expect((await details(user, t.id)).deprecated).toBeNull();
  });

  it('yanking the current version falls back to the newest one not yanked; un-yanking makes it current again', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await withVersions(author, ['1.0.0', '1.1.0', '1.2.0']);
    expect((await change(author, t.id, '1.2.0', { yanked: true, reason: 'Broken check.' })).body.current_version).toBe(
      '1.1.0',
    );
    expect((await change(author, t.id, '1.1.0', { yanked: true })).body.current_version).toBe('1.0.0');
    const seen = await details(user, t.id);
    expect(seen.version).toBe('1.0.0');
    expect(seen.versions.map((v: any) => [v.version, v.yanked_at !== null])).toEqual([
      ['1.2.0', true],
      ['1.1.0', true],
      ['1.0.0', false],
    ]);
    const installed = await invoke('installTemplate', { caller: user, params: { id: t.id } });
    expect(installed.body.version).toBe('1.0.0');
    expect((await change(author, t.id, '1.2.0', { yanked: false })).body.current_version).toBe('1.2.0');
    expect((await details(user, t.id)).version).toBe('1.2.0');
  });

  it('yanking every version hides the template from lists and category counts, refuses installs and contracts, keeps existing contracts', async () => {
    const author = await createTestUser();
    const buyer = await createTestUser();
    const t = await withVersions(author, ['1.0.0', '2.0.0']);
    const agent = await createAgent(buyer);
    const existing = await createContract(buyer, agent, t.id);
    const countBefore = (await invoke('listCategories', { caller: buyer })).body.data.find(
      (c: any) => c.name === 'http',
    ).count;
    expect(await listedIds(buyer)).toContain(t.id);

    await change(author, t.id, '2.0.0', { yanked: true });
    const last = await change(author, t.id, '1.0.0', { yanked: true });
    expect(last.body.current_version).toBeNull();

    expect(await listedIds(buyer)).not.toContain(t.id);
    const featured = (await invoke('featuredTemplates', { caller: buyer })).body;
    for (const list of ['trending', 'new', 'top_rated'])
      expect(featured[list].map((x: any) => x.id)).not.toContain(t.id);
    const countAfter = (await invoke('listCategories', { caller: buyer })).body.data.find(
      (c: any) => c.name === 'http',
    ).count;
    expect(countAfter).toBe(countBefore - 1);
    expectError(await invoke('installTemplate', { caller: buyer, params: { id: t.id } }), 409, 'template_yanked');
    expectError(
      await invoke('createContract', {
        caller: buyer,
        body: { template_id: t.id, variables: {}, amount_cents: 100, agent_id: agent },
      }),
      409,
      'template_yanked',
    );
    const kept = await invoke('getContract', { caller: buyer, params: { id: existing } });
    expect(kept.status).toBe(200);
    expect(kept.body.checks).toHaveLength(1);
    expect((await details(author, t.id)).yanked).toBe(true);

    // A new version lists it again, and counts it again.
    const republished = await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version: '3.0.0', schema: SIMPLE_SCHEMA },
    });
    expect(republished.status).toBe(201);
    expect(republished.body.yanked).toBe(false);
    expect(await listedIds(buyer)).toContain(t.id);
    const countBack = (await invoke('listCategories', { caller: buyer })).body.data.find(
      (c: any) => c.name === 'http',
    ).count;
    expect(countBack).toBe(countBefore);
  });

  it('counts stay exact when every version is yanked and taken back concurrently', async () => {
    const author = await createTestUser();
    const t = await withVersions(author, ['1.0.0', '1.0.1', '1.0.2', '1.0.3']);
    const count = async () =>
      (await invoke('listCategories', { caller: author })).body.data.find((c: any) => c.name === 'http').count;
    const before = await count();
    const versions = ['1.0.0', '1.0.1', '1.0.2', '1.0.3'];
    const yanks = await Promise.all(versions.map((v) => change(author, t.id, v, { yanked: true })));
    expect(yanks.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await count()).toBe(before - 1);
    expect((await details(author, t.id)).yanked).toBe(true);
    const back = await Promise.all(versions.map((v) => change(author, t.id, v, { yanked: false })));
    expect(back.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(await count()).toBe(before);
    expect((await details(author, t.id)).version).toBe('1.0.3');
  });

  it("author only (403), 404 for an unknown version or someone else's private template, 400 for an empty or loose body", async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const t = await withVersions(author, ['1.0.0']);
    const priv = await publish(author, { visibility: 'private' });
    expectError(await change(other, t.id, '1.0.0', { yanked: true }), 403, 'forbidden');
    expectError(await change(other, priv.id, '1.0.0', { yanked: true }), 404, 'not_found');
    expectError(await change(author, t.id, '9.9.9', { yanked: true }), 404, 'not_found');
    expectError(await change(author, t.id, '01.0.0', { yanked: true }), 404, 'not_found');
    expectError(await change(author, t.id, '1.0.0', {}), 400, 'validation_error');
    expectError(await change(author, t.id, '1.0.0', { yanked: true, extra: 1 }), 400, 'validation_error');
    expectError(await change(author, t.id, '1.0.0', { reason: 'no yank' }), 400, 'validation_error');
    expectError(await change(author, t.id, '1.0.0', { deprecated: '' }), 400, 'validation_error');
  });
});
