import { describe, expect, it } from 'vitest';
import { installTemplate } from '../../lib/marketplace/installs/install.ts';
import { trendingTemplates } from '../../lib/marketplace/trending/trending.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { expectError, publish } from './helpers.ts';

const DAY = 86_400_000;
const slugs = (list: any[]) => list.map((s) => s.slug);

async function installAt(id: string, count: number, at: number) {
  const users = await Promise.all(Array.from({ length: count }, () => createTestUser()));
  await Promise.all(users.map((u) => installTemplate(id, u, at)));
}

describe('PUT / DELETE /templates/:id/featured', () => {
  it('is for operators only: 403 for others, 204 for an operator, idempotent both ways', async () => {
    const author = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author);
    expectError(await invoke('featureTemplate', { caller: author, params: { id: t.id } }), 403, 'forbidden');
    expectError(await invoke('unfeatureTemplate', { caller: author, params: { id: t.id } }), 403, 'forbidden');
    for (let i = 0; i < 2; i++) {
      const res = await invoke('featureTemplate', { caller: operator, params: { id: t.slug } });
      expect(res.status).toBe(204);
      expect(res.raw.body).toBe('');
    }
    expect(slugs((await invoke('featuredTemplates', { caller: author })).body.featured)).toContain(t.slug);
    for (let i = 0; i < 2; i++)
      expect((await invoke('unfeatureTemplate', { caller: operator, params: { id: t.id } })).status).toBe(204);
    expect(slugs((await invoke('featuredTemplates', { caller: author })).body.featured)).not.toContain(t.slug);
  });

  it("404 for an operator on someone else's private template or an unknown id", async () => {
    const operator = await createTestUser({ operator: true });
    const t = await publish(await createTestUser(), { visibility: 'private' });
    expectError(await invoke('featureTemplate', { caller: operator, params: { id: t.id } }), 404, 'not_found');
    expectError(await invoke('featureTemplate', { caller: operator, params: { id: 'missing-one' } }), 404, 'not_found');
  });
});

describe('GET /templates/featured', () => {
  let author: TestUser;

  it('returns four lists of public summaries; featured follows visibility', async () => {
    author = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author);
    const hidden = await publish(author);
    await invoke('featureTemplate', { caller: operator, params: { id: t.id } });
    await invoke('featureTemplate', { caller: operator, params: { id: hidden.id } });
    await invoke('updateTemplate', { caller: author, params: { id: hidden.id }, body: { visibility: 'private' } });
    const res = await invoke('featuredTemplates', { caller: author });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['featured', 'new', 'top_rated', 'trending']);
    expect(slugs(res.body.featured)).toContain(t.slug);
    expect(slugs(res.body.featured)).not.toContain(hidden.slug);
    expect(slugs(res.body.new)[0]).toBe(t.slug);
    expect(slugs(res.body.new)).not.toContain(hidden.slug);
    expect(res.body.featured[0]).not.toHaveProperty('schema');

    await invoke('updateTemplate', { caller: author, params: { id: hidden.id }, body: { visibility: 'public' } });
    expect(slugs((await invoke('featuredTemplates', { caller: author })).body.featured)).toContain(hidden.slug);
  });

  it('caps every list at 10; new is newest first; top_rated leaves unrated out', async () => {
    const a = await createTestUser();
    const made = [];
    for (let i = 0; i < 12; i++) made.push(await publish(a));
    const rater = await createTestUser();
    await invoke('createReview', { caller: rater, params: { id: made[0].id }, body: { rating: 5, title: 'great' } });
    const res = (await invoke('featuredTemplates', { caller: a })).body;
    expect(slugs(res.new)).toEqual(
      made
        .slice(2)
        .reverse()
        .map((t) => t.slug),
    );
    expect(res.top_rated.every((s: any) => s.stats.rating_count > 0)).toBe(true);
    expect(slugs(res.top_rated)).toContain(made[0].slug);
    for (const list of Object.values(res) as any[][]) expect(list.length).toBeLessThanOrEqual(10);
  });

  it('trending counts installs of the last 7 days only, rolling, public only', async () => {
    const a = await createTestUser();
    const now = Date.now();
    const [old, steady, fresh, priv] = [
      await publish(a),
      await publish(a),
      await publish(a),
      await publish(a, { visibility: 'private' }),
    ];
    await installAt(old.id, 6, now - 9 * DAY); //   all outside the window
    await installAt(steady.id, 3, now - 5 * DAY); // inside for two more days
    await installAt(fresh.id, 2, now - DAY);
    await installAt(fresh.id, 2, now);
    await installTemplate(priv.id, a, now);

    const at = async (t: number) => slugs((await trendingTemplates(t)).map((i) => ({ slug: i.slug })));
    expect(await at(now)).toEqual([fresh.slug, steady.slug]);
    expect(await at(now + DAY)).toEqual([fresh.slug, steady.slug]);
    expect(await at(now + 2 * DAY)).toEqual([fresh.slug]); // steady's installs left the window
    expect(await at(now + 7 * DAY)).toEqual([]);
    expect(slugs((await invoke('featuredTemplates', { caller: a })).body.trending)).toEqual([fresh.slug, steady.slug]);

    // An idle template that comes back starts from its buckets inside the window, not its old total.
    await installAt(old.id, 1, now);
    expect(await at(now)).toEqual([fresh.slug, steady.slug, old.slug]);
  });
});
