import { describe, expect, it } from 'vitest';
import { createTestUser, invoke } from '../support/lambda.ts';
import { expectError, publish } from './helpers.ts';

const counts = async (user: any) =>
  Object.fromEntries((await invoke('listCategories', { caller: user })).body.data.map((c: any) => [c.name, c.count]));

describe('GET /templates/:id', () => {
  it('reads a template by id and by slug, with versions and reviews', async () => {
    const author = await createTestUser();
    const reader = await createTestUser();
    const t = await publish(author);
    for (const id of [t.id, t.slug, t.id.toUpperCase()]) {
      const res = await invoke('getTemplate', { caller: reader, params: { id } });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        ...t,
        reviews: [],
        viewer: { author: false, installed: false, reviewed: false },
      });
    }
  });

  it('answers 404 for malformed ids, unknown ids and unknown slugs', async () => {
    const user = await createTestUser();
    for (const id of ['Not A Slug', 'x', '00000000-0000-4000-8000-000000000000', 'no-such-template', '../etc']) {
      expectError(await invoke('getTemplate', { caller: user, params: { id } }), 404, 'not_found');
    }
  });

  it('hides a private template from everyone but its author (404), shows unlisted to anyone', async () => {
    const author = await createTestUser();
    const other = await createTestUser({ operator: true });
    const priv = await publish(author, { visibility: 'private' });
    const unlisted = await publish(author, { visibility: 'unlisted' });
    expect((await invoke('getTemplate', { caller: author, params: { id: priv.slug } })).status).toBe(200);
    expectError(await invoke('getTemplate', { caller: other, params: { id: priv.id } }), 404, 'not_found');
    expectError(await invoke('getTemplate', { caller: other, params: { id: priv.slug } }), 404, 'not_found');
    expect((await invoke('getTemplate', { caller: other, params: { id: unlisted.slug } })).status).toBe(200);
  });
});

describe('PATCH /templates/:id', () => {
  it('lets the author change name, description, category and visibility', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const res = await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { name: 'Renamed', description: 'New words', category: 'data', visibility: 'unlisted' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: t.id,
      name: 'Renamed',
      description: 'New words',
      category: 'data',
      visibility: 'unlisted',
      versions: t.versions,
      schema: t.schema,
    });
    expect(res.body.updated_at > t.updated_at).toBe(true);
    expect((await invoke('getTemplate', { caller: author, params: { id: t.slug } })).body.name).toBe('Renamed');
  });

  it('refuses others: 403 on a template they can see, 404 on a private one', async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const pub = await publish(author);
    const priv = await publish(author, { visibility: 'private' });
    expectError(
      await invoke('updateTemplate', { caller: other, params: { id: pub.id }, body: { name: 'Mine' } }),
      403,
      'forbidden',
    );
    expectError(
      await invoke('updateTemplate', { caller: other, params: { id: priv.id }, body: { name: 'Mine' } }),
      404,
      'not_found',
    );
  });

  it('validates the body: empty, unknown field, bad values, immutable fields', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const cases: [unknown, string][] = [
      [{}, ''],
      [{ slug: 'new-slug' }, 'slug'],
      [{ category: 'games' }, 'category'],
      [{ visibility: 'hidden' }, 'visibility'],
      [{ name: '' }, 'name'],
      [{ description: 'x'.repeat(2001) }, 'description'],
    ];
    for (const [body, path] of cases) {
      const res = await invoke('updateTemplate', { caller: author, params: { id: t.id }, body });
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details.map((d: any) => d.path)).toContain(path);
    }
  });

  it('keeps category counts and lists exact through visibility and category changes', async () => {
    const author = await createTestUser();
    const t = await publish(author, { category: 'document' });
    const base = await counts(author);
    const listed = async () =>
      (
        await invoke('listTemplates', { caller: author, query: { category: 'document', sort: 'recent' } })
      ).body.data.map((s: any) => s.id);
    expect(await listed()).toContain(t.id);

    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { visibility: 'private' } });
    expect(await counts(author)).toMatchObject({ document: base.document - 1 });
    expect(await listed()).not.toContain(t.id);

    await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { visibility: 'private', category: 'code' },
    });
    expect(await counts(author)).toMatchObject({ document: base.document - 1, code: base.code });

    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { visibility: 'public' } });
    expect(await counts(author)).toMatchObject({ document: base.document - 1, code: base.code + 1 });
    const codeList = (await invoke('listTemplates', { caller: author, query: { category: 'code' } })).body.data.map(
      (s: any) => s.id,
    );
    expect(codeList).toContain(t.id);

    await invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { category: 'document' } });
    expect(await counts(author)).toMatchObject({ document: base.document, code: base.code });
    expect(await listed()).toContain(t.id);
  });

  it('keeps counts exact when many PATCHes of one template race', async () => {
    const author = await createTestUser();
    const t = await publish(author, { category: 'other' });
    const base = (await counts(author)).other;
    const visibilities = ['private', 'public', 'unlisted', 'public', 'private', 'public', 'unlisted', 'public'];
    const results = await Promise.all(
      visibilities.map((visibility) =>
        invoke('updateTemplate', { caller: author, params: { id: t.id }, body: { visibility } }),
      ),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    const final = (await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.visibility;
    expect((await counts(author)).other).toBe(base - 1 + (final === 'public' ? 1 : 0));
  });
});

describe('POST /templates/:id/versions', () => {
  it('publishes a greater version: 201, current version and schema, history newest first', async () => {
    const author = await createTestUser();
    const t = await publish(author, { version: '1.0.0' });
    const schema = {
      variables: [{ name: 'n', type: 'integer' }],
      checks: [{ id: 'c', type: 'count', config: { min: '{{n}}' } }],
    };
    const res = await invoke('publishVersion', {
      caller: author,
      params: { id: t.slug },
      body: { version: '1.1.0', schema, changelog: 'Adds n' },
    });
    expect(res.status).toBe(201);
    expect(res.body.version).toBe('1.1.0');
    expect(res.body.schema.variables[0]).toEqual({ name: 'n', type: 'integer', required: true });
    expect(res.body.versions.map((v: any) => [v.version, v.changelog])).toEqual([
      ['1.1.0', 'Adds n'],
      ['1.0.0', ''],
    ]);
    const again = await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version: '1.10.0', schema },
    });
    expect(again.body.versions.map((v: any) => v.version)).toEqual(['1.10.0', '1.1.0', '1.0.0']);
    const details = await invoke('getTemplate', { caller: author, params: { id: t.id } });
    expect(details.body.versions.map((v: any) => v.version)).toEqual(['1.10.0', '1.1.0', '1.0.0']);
  });

  it('409 version_exists for the current or an existing version, 400 for a lower new one', async () => {
    const author = await createTestUser();
    const t = await publish(author, { version: '1.0.0' });
    await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version: '2.0.0', schema: t.schema },
    });
    expectError(
      await invoke('publishVersion', {
        caller: author,
        params: { id: t.id },
        body: { version: '2.0.0', schema: t.schema },
      }),
      409,
      'version_exists',
    );
    expectError(
      await invoke('publishVersion', {
        caller: author,
        params: { id: t.id },
        body: { version: '1.0.0', schema: t.schema },
      }),
      409,
      'version_exists',
    );
    const lower = await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version: '1.5.0', schema: t.schema },
    });
    expectError(lower, 400, 'validation_error');
    expect(lower.body.error.details).toEqual([{ path: 'version', message: expect.stringContaining('2.0.0') }]);
  });

  it('is author only and validates the schema', async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const t = await publish(author);
    expectError(
      await invoke('publishVersion', {
        caller: other,
        params: { id: t.id },
        body: { version: '9.0.0', schema: t.schema },
      }),
      403,
      'forbidden',
    );
    const bad = await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: {
        version: '9.0.0',
        schema: { variables: [], checks: [{ id: 'a', type: 't', config: { x: '{{nope}}' } }] },
      },
    });
    expectError(bad, 400, 'validation_error');
    expect(bad.body.error.details[0].path).toBe('schema.checks.0.config.x');
  });

  it('lets exactly one of two concurrent publishes of the same version win', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const results = await Promise.all(
      [1, 2, 3].map(() =>
        invoke('publishVersion', {
          caller: author,
          params: { id: t.id },
          body: { version: '3.0.0', schema: t.schema },
        }),
      ),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409]);
  });
});

describe('GET /categories', () => {
  it('lists every category of the fixed list with public counts only', async () => {
    const author = await createTestUser();
    const before = await counts(author);
    await publish(author, { category: 'ai' });
    await publish(author, { category: 'ai', visibility: 'private' });
    await publish(author, { category: 'ai', visibility: 'unlisted' });
    const res = await invoke('listCategories', { caller: author });
    expect(res.body.data.map((c: any) => c.name)).toEqual([
      'http',
      'artifact',
      'code',
      'data',
      'document',
      'ai',
      'other',
    ]);
    expect(Object.fromEntries(res.body.data.map((c: any) => [c.name, c.count]))).toEqual({
      ...before,
      ai: before.ai + 1,
    });
  });
});
