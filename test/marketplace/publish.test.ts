import { describe, expect, it } from 'vitest';
import { createTestUser, invoke } from '../support/lambda.ts';
import { detailPaths, expectError, publish, templateBody } from './helpers.ts';

describe('POST /templates', () => {
  it('publishes a template: 201, Location, stats at 0, first version', async () => {
    const user = await createTestUser({ name: 'Ada', verified: true });
    const body = templateBody();
    const res = await invoke('publishTemplate', { caller: user, body });
    expect(res.status).toBe(201);
    expect(res.headers['location']).toBe(`/v1/marketplace/templates/${res.body.id}`);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: body['name'],
      slug: body['slug'],
      description: body['description'],
      category: 'http',
      author: { id: user.userId, name: 'Ada', verified: true },
      version: '1.0.0',
      versions: [
        {
          version: '1.0.0',
          changelog: '',
          created_at: res.body.created_at,
          deprecated: null,
          yanked_at: null,
          quarantine: null,
        },
      ],
      quarantine: null,
      schema: {
        variables: [
          { name: 'url', type: 'url', description: 'Endpoint', required: true },
          { name: 'expected_status', type: 'integer', required: false, default: 200 },
        ],
        checks: (body['schema'] as any).checks,
      },
      stats: { installs: 0, rating_avg: 0, rating_count: 0, contracts_created: 0 },
      deprecated: null,
      yanked: false,
      hidden: false,
      visibility: 'public',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
  });

  it('defaults description to "" and visibility to public', async () => {
    const user = await createTestUser();
    const { description: _d, ...body } = templateBody();
    const res = await invoke('publishTemplate', { caller: user, body });
    expect(res.status).toBe(201);
    expect(res.body.description).toBe('');
    expect(res.body.visibility).toBe('public');
  });

  it('answers a taken slug with 409 slug_taken, also the reserved "featured"', async () => {
    const user = await createTestUser();
    const first = await publish(user);
    expectError(
      await invoke('publishTemplate', { caller: user, body: templateBody({ slug: first.slug }) }),
      409,
      'slug_taken',
    );
    expectError(
      await invoke('publishTemplate', { caller: user, body: templateBody({ slug: 'featured' }) }),
      409,
      'slug_taken',
    );
  });

  it('gives exactly one 201 when ten publishes race for one slug', async () => {
    const users = await Promise.all(Array.from({ length: 10 }, () => createTestUser()));
    const slug = `race-${Date.now()}`;
    const results = await Promise.all(
      users.map((u) => invoke('publishTemplate', { caller: u, body: templateBody({ slug }) })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, ...Array(9).fill(409)]);
    const read = await invoke('getTemplate', { caller: users[0], params: { id: slug } });
    expect(read.body.id).toBe(results.find((r) => r.status === 201)!.body.id);
  });

  it('treats a retried publish (same body twice) as one template', async () => {
    const user = await createTestUser();
    const body = templateBody({ category: 'ai' });
    const before = (await invoke('listCategories', { caller: user })).body.data.find((c: any) => c.name === 'ai').count;
    const [a, b] = [
      await invoke('publishTemplate', { caller: user, body }),
      await invoke('publishTemplate', { caller: user, body }),
    ];
    expect([a.status, b.status]).toEqual([201, 409]);
    const after = (await invoke('listCategories', { caller: user })).body.data.find((c: any) => c.name === 'ai').count;
    expect(after).toBe(before + 1);
  });

  const invalid: [string, Record<string, unknown>, string[]][] = [
    [
      'missing required fields',
      { name: undefined, slug: undefined, category: undefined, version: undefined, schema: undefined },
      ['name', 'slug', 'category', 'version', 'schema'],
    ],
    ['empty name', { name: '' }, ['name']],
    ['name over 100', { name: 'x'.repeat(101) }, ['name']],
    ['slug with capitals', { slug: 'Bad-Slug' }, ['slug']],
    ['slug with double hyphen', { slug: 'bad--slug' }, ['slug']],
    ['slug too short', { slug: 'ab' }, ['slug']],
    ['slug too long', { slug: 'a'.repeat(65) }, ['slug']],
    ['slug shaped like a UUID', { slug: '0f8fad5b-d9cb-469f-a165-70867728950e' }, ['slug']],
    ['unknown category', { category: 'games' }, ['category']],
    ['bad version', { version: '1.0' }, ['version']],
    ['version with leading zero', { version: '01.0.0' }, ['version']],
    ['description over 2000', { description: 'x'.repeat(2001) }, ['description']],
    ['bad visibility', { visibility: 'secret' }, ['visibility']],
    ['unknown field', { price: 3 }, ['price']],
    ['schema not an object', { schema: [] }, ['schema']],
    ['schema without checks', { schema: { variables: [] } }, ['schema.checks']],
  ];
  it.each(invalid)('refuses %s with 400 and details', async (_name, overrides, paths) => {
    const user = await createTestUser();
    const res = await invoke('publishTemplate', {
      caller: user,
      body: JSON.parse(JSON.stringify(templateBody(overrides))),
    });
    expectError(res, 400, 'validation_error');
    expect(detailPaths(res).sort()).toEqual([...paths].sort());
  });

  const schemaCases: [string, unknown, string[]][] = [
    ['bad variable name', { variables: [{ name: 'Url', type: 'string' }], checks: [] }, ['schema.variables.0.name']],
    [
      'duplicate variable',
      {
        variables: [
          { name: 'a', type: 'string' },
          { name: 'a', type: 'number' },
        ],
        checks: [],
      },
      ['schema.variables.1.name'],
    ],
    ['unknown variable type', { variables: [{ name: 'a', type: 'date' }], checks: [] }, ['schema.variables.0.type']],
    [
      'default of the wrong type',
      {
        variables: [
          { name: 'a', type: 'integer', default: 1.5 },
          { name: 'b', type: 'boolean', default: 'yes' },
          { name: 'c', type: 'url', default: 'ftp://x' },
        ],
        checks: [],
      },
      ['schema.variables.0.default', 'schema.variables.1.default', 'schema.variables.2.default'],
    ],
    [
      'default outside the enum',
      { variables: [{ name: 'f', type: 'string', enum: ['csv'], default: 'xml' }], checks: [] },
      ['schema.variables.0.default'],
    ],
    [
      'enum on a number',
      { variables: [{ name: 'n', type: 'number', enum: ['1'] }], checks: [] },
      ['schema.variables.0.enum'],
    ],
    [
      'enum of non-strings',
      { variables: [{ name: 'n', type: 'string', enum: [1] }], checks: [] },
      ['schema.variables.0.enum.0'],
    ],
    [
      'duplicate check id',
      {
        variables: [],
        checks: [
          { id: 'c', type: 't', config: {} },
          { id: 'c', type: 't', config: {} },
        ],
      },
      ['schema.checks.1.id'],
    ],
    ['check without config', { variables: [], checks: [{ id: 'c', type: 't' }] }, ['schema.checks.0.config']],
    [
      'check type not a string',
      { variables: [], checks: [{ id: 'c', type: 5, config: {} }] },
      ['schema.checks.0.type'],
    ],
    [
      'undeclared placeholder, deep',
      {
        variables: [{ name: 'url', type: 'url' }],
        checks: [{ id: 'c', type: 't', config: { a: { b: ['{{url}}', 'x {{missing}} y'] } } }],
      },
      ['schema.checks.0.config.a.b.1'],
    ],
    [
      'unknown field in a variable',
      { variables: [{ name: 'a', type: 'string', secret: true }], checks: [] },
      ['schema.variables.0.secret'],
    ],
  ];
  it.each(schemaCases)('refuses a schema with %s, naming the path', async (_name, schema, paths) => {
    const user = await createTestUser();
    const res = await invoke('publishTemplate', { caller: user, body: templateBody({ schema }) });
    expectError(res, 400, 'validation_error');
    expect(detailPaths(res).sort()).toEqual([...paths].sort());
  });

  it('refuses a non-JSON body with 415 and malformed JSON with 400 invalid_json', async () => {
    const user = await createTestUser();
    expectError(
      await invoke('publishTemplate', { caller: user, body: 'x', headers: { 'content-type': 'text/plain' } }),
      415,
      'unsupported_media_type',
    );
    expectError(
      await invoke('publishTemplate', {
        caller: user,
        body: '{"name":',
        headers: { 'content-type': 'application/json' },
      }),
      400,
      'invalid_json',
    );
  });
});
