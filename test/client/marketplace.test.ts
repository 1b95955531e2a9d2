import { describe, expect, it } from 'vitest';
import { ApiError, type TemplateSummary } from '../../client/index.ts';
import { useLocalApi } from '../support/local-api.ts';
import { indexSearch } from '../support/search-index.ts';
import { clientForNewUser } from './support/local-client.ts';
import { templateInput } from './support/template-input.ts';

const api = useLocalApi();
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'succeeded',
    (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code}` : String(e)),
  );

describe('client: marketplace against the local API', () => {
  it('publishes a template and reads it back by id and by slug', async () => {
    const { client, user } = await clientForNewUser(api.url, { name: 'Ada', verified: true });
    const input = templateInput();
    const published = await client.templates.publish(input);
    expect(published).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: input.name,
      slug: input.slug,
      category: 'http',
      version: '1.0.0',
      visibility: 'public',
      author: { id: user.userId, name: 'Ada', verified: true },
      stats: { installs: 0, rating_avg: 0, rating_count: 0, contracts_created: 0 },
      created_at: iso,
      updated_at: iso,
    });
    const byId = await client.templates.get(published.id);
    expect(byId).toMatchObject({ id: published.id, schema: input.schema, reviews: [] });
    expect(byId.versions.map((v) => v.version)).toEqual(['1.0.0']);
    expect((await client.templates.get(input.slug)).id).toBe(published.id);
    expect(await codeOf(client.templates.publish(templateInput({ slug: input.slug })))).toBe('409 slug_taken');
  });

  it('updates a template and publishes a newer version, author only', async () => {
    const { client } = await clientForNewUser(api.url);
    const { client: stranger } = await clientForNewUser(api.url);
    const template = await client.templates.publish(templateInput());
    expect(await client.templates.update(template.id, { description: 'Now with retries.' })).toMatchObject({
      description: 'Now with retries.',
    });
    const v2 = await client.templates.publishVersion(template.id, {
      version: '1.1.0',
      schema: templateInput().schema,
      changelog: 'retries',
    });
    expect(v2.version).toBe('1.1.0');
    expect((await client.templates.get(template.id)).versions.map((v) => v.version)).toEqual(['1.1.0', '1.0.0']);
    expect(
      await codeOf(client.templates.publishVersion(template.id, { version: '1.1.0', schema: templateInput().schema })),
    ).toMatch(/^409 version_exists|^400/);
    expect(await codeOf(stranger.templates.update(template.id, { name: 'Mine now' }))).toMatch(
      /^(403 forbidden|404 not_found)$/,
    );
  });

  it('lists, searches, filters and iterates public templates; a private one only its author sees', async () => {
    const { client } = await clientForNewUser(api.url);
    const { client: other } = await clientForNewUser(api.url);
    const marker = `zebrafish${Date.now()}`;
    const published = [];
    for (let i = 0; i < 3; i++)
      published.push(
        await client.templates.publish(templateInput({ name: `${marker} number ${i}`, category: 'data' })),
      );
    const hidden = await client.templates.publish(
      templateInput({ name: `${marker} hidden`, category: 'data', visibility: 'private' }),
    );

    await indexSearch(); // the stream's search indexer catches up
    const page = await other.templates.list({ search: marker, sort: 'recent', limit: 2 });
    expect(page.data.map((t) => t.id)).toEqual([published[2]!.id, published[1]!.id]);
    // A one-word search's total is exact (a counter per word prefix).
    expect(page.pagination).toEqual({ limit: 2, offset: 0, total: 3, has_more: true, next_cursor: expect.any(String) });
    expect(page.data[0]).not.toHaveProperty('schema');

    const all: TemplateSummary[] = [];
    for await (const t of other.templates.iterate({ search: marker, sort: 'recent', limit: 2 })) all.push(t);
    expect(all.map((t) => t.id)).toEqual(published.map((t) => t.id).reverse());

    expect((await other.templates.list({ category: 'data', search: marker })).data).toHaveLength(3);
    expect((await other.templates.list({ category: 'data' })).pagination.total).toBe(3);
    expect(await codeOf(other.templates.get(hidden.id))).toBe('404 not_found');
    expect((await client.templates.get(hidden.id)).visibility).toBe('private');
    expect(await codeOf(other.templates.list({ limit: 101 }))).toBe('400 validation_error');
  });

  it('installs once per workspace (a repeat changes nothing) and lists installed templates', async () => {
    const { client: author } = await clientForNewUser(api.url);
    const { client } = await clientForNewUser(api.url);
    const template = await author.templates.publish(templateInput());
    const first = await client.templates.install(template.id);
    expect(first).toMatchObject({ template_id: template.id, version: '1.0.0', installed_at: iso, created: true });
    expect((await client.templates.install(template.id)).created).toBe(false);
    expect((await client.templates.get(template.id)).stats.installs).toBe(1);
    expect((await client.templates.installed()).data.map((t) => t.id)).toEqual([template.id]);
  });

  it('pages the installed templates: one page with its cursor, and every one through iterateInstalled', async () => {
    const { client: author } = await clientForNewUser(api.url);
    const { client } = await clientForNewUser(api.url);
    const installed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const template = await author.templates.publish(templateInput());
      await client.templates.install(template.id);
      installed.unshift(template.id); // newest install first
    }
    const first = await client.templates.installed({ limit: 2 });
    expect(first.data.map((t) => t.id)).toEqual(installed.slice(0, 2));
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await client.templates.installed({ limit: 2, cursor: first.next_cursor! });
    expect(second).toMatchObject({ data: [{ id: installed[2] }], next_cursor: null });
    const all: string[] = [];
    for await (const template of client.templates.iterateInstalled({ limit: 1 })) all.push(template.id);
    expect(all).toEqual(installed);
  });

  it('takes one review per user, never on your own template, and updates the rating', async () => {
    const { client: author } = await clientForNewUser(api.url);
    const { client: alice, user: aliceUser } = await clientForNewUser(api.url, { name: 'Alice' });
    const { client: bob } = await clientForNewUser(api.url);
    const template = await author.templates.publish(templateInput());

    const review = await alice.reviews.create(template.id, { rating: 5, title: 'Great', comment: 'Works.' });
    expect(review).toMatchObject({
      id: expect.any(String),
      user: { id: aliceUser.userId, name: 'Alice' },
      rating: 5,
      title: 'Great',
      comment: 'Works.',
      created_at: iso,
    });
    await bob.reviews.create(template.id, { rating: 2, title: 'Meh' });
    expect(await codeOf(alice.reviews.create(template.id, { rating: 1, title: 'Again' }))).toBe('409 review_exists');
    expect(await codeOf(author.reviews.create(template.id, { rating: 5, title: 'Mine' }))).toBe('403 forbidden');

    const page = await alice.reviews.list(template.id, { limit: 1 });
    expect(page.data.map((r) => r.title)).toEqual(['Meh']);
    const titles = [];
    for await (const r of alice.reviews.iterate(template.id, { limit: 1 })) titles.push(r.title);
    expect(titles).toEqual(['Meh', 'Great']);
    expect((await alice.templates.get(template.id)).stats).toMatchObject({ rating_avg: 3.5, rating_count: 2 });
  });

  it('counts categories and lets only an operator feature a template', async () => {
    const { client: operator } = await clientForNewUser(api.url, { operator: true });
    const { client } = await clientForNewUser(api.url);
    const template = await client.templates.publish(templateInput({ category: 'ai' }));

    const categories = await client.categories.list();
    expect(categories.data.map((c) => c.name)).toEqual(
      expect.arrayContaining(['http', 'artifact', 'code', 'data', 'document', 'ai', 'other']),
    );
    expect(categories.data.find((c) => c.name === 'ai')!.count).toBeGreaterThanOrEqual(1);

    expect(await codeOf(client.templates.feature(template.id))).toBe('403 forbidden');
    await operator.templates.feature(template.id);
    const featured = await client.templates.featured();
    expect(Object.keys(featured).sort()).toEqual(['featured', 'new', 'top_rated', 'trending']);
    expect(featured.featured.map((t) => t.id)).toContain(template.id);
    await operator.templates.unfeature(template.id);
    expect((await client.templates.featured()).featured.map((t) => t.id)).not.toContain(template.id);
  });
});
