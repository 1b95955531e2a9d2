import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { STAGES } from '../infra/stage-config.ts';
import { takesIdempotencyKey } from '../lib/http/idempotent-methods.ts';
import { serializeDocument } from '../lib/http/openapi/document.ts';
import { documented, routeDocs } from '../lib/route-docs.ts';
import { routes } from '../lib/routes.ts';
import { currentOpenApiDocument, OPENAPI_PATH } from '../local/openapi-document.ts';
import { routeNamed } from './support/lambda.ts';
import { useLocalApi } from './support/local-api.ts';
import { openApiProblems } from './support/openapi-responses.ts';

/** generated/openapi.json, a build artifact: the tier's globalSetup wrote it (test/support/openapi-document.ts). */
const written = readFileSync(OPENAPI_PATH, 'utf8');
const api = useLocalApi();

describe('the OpenAPI document', () => {
  it('is built before the tests run: generated/openapi.json, which they serve and hold answers to, is the document the route table makes now', async () => {
    expect(written).toBe(serializeDocument(await currentOpenApiDocument()));
  });

  it('has every route of the table with its method, and documents each exactly once', async () => {
    const doc = JSON.parse(written);
    // Each route's words live beside its row (lib/route-docs.ts, by name): none missing, none naming no route.
    expect(new Set(routes.map((r) => r.name)).size).toBe(routes.length);
    expect(Object.keys(routeDocs).sort()).toEqual(routes.map((r) => r.name).sort());
    expect(() => documented([{ ...routes[0]!, name: 'noSuchRoute' }])).toThrow(
      'noSuchRoute has no entry in lib/route-docs.ts',
    );
    for (const route of routes) {
      const operation = doc.paths[route.path]?.[route.method.toLowerCase()];
      expect(operation?.operationId, `${route.method} ${route.path}`).toBe(route.name);
      expect(operation.security, route.name).toEqual(route.auth ? [{ apiKey: [] }] : []);
      // 429 with Retry-After is a possible answer of every route.
      expect(operation.responses['429'], route.name).toEqual({ $ref: '#/components/responses/TooManyRequests' });
      if (takesIdempotencyKey(route.method))
        expect(operation.parameters, route.name).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
      else
        expect(operation.parameters ?? [], route.name).not.toContainEqual({
          $ref: '#/components/parameters/IdempotencyKey',
        });
    }
  });

  it('describes request bodies and query strings from the handlers’ own zod schemas (strict)', () => {
    const doc = JSON.parse(written);
    const publish = doc.paths['/v1/marketplace/templates'].post.requestBody.content['application/json'].schema;
    expect(publish.additionalProperties).toBe(false);
    expect(publish.required).toEqual(expect.arrayContaining(['name', 'slug', 'category', 'version', 'schema']));
    const list = doc.paths['/v1/marketplace/templates'].get.parameters.map((p: { name: string }) => p.name);
    expect(list).toEqual(expect.arrayContaining(['limit', 'offset', 'cursor', 'sort', 'category', 'search']));
  });

  it('says integer for every limit and offset, on every route that takes one', () => {
    const doc = JSON.parse(written);
    const pages: string[] = [];
    for (const [path, methods] of Object.entries(
      doc.paths as Record<string, Record<string, { parameters?: unknown[] }>>,
    ))
      for (const [method, operation] of Object.entries(methods))
        for (const p of (operation.parameters ?? []) as { name?: string; schema?: { type?: string } }[])
          if (p.name === 'limit' || p.name === 'offset') {
            pages.push(`${method} ${path} ${p.name}`);
            expect(p.schema?.type, `${method} ${path} ${p.name}`).toBe('integer');
          }
    // The marketplace's three lists, the agents list, the feed, deliveries and contracts.
    expect(pages.filter((p) => p.endsWith('limit')).length).toBeGreaterThanOrEqual(7);
  });

  it('has servers for npm start and for a deployed stage, each with its variable', () => {
    const doc = JSON.parse(written);
    expect(doc.servers.map((s: { url: string }) => s.url)).toEqual([
      'http://localhost:{port}',
      'https://{apiId}.execute-api.{region}.amazonaws.com/{stage}',
    ]);
    expect(doc.servers[0].variables.port.default).toBe('3000');
    expect([...doc.servers[1].variables.stage.enum].sort()).toEqual(Object.keys(STAGES).sort());
  });

  it('has the webhooks: the handshake, the test event, the four contract events and the three template events, with both signature schemes', () => {
    const doc = JSON.parse(written);
    expect(Object.keys(doc.webhooks).sort()).toEqual([
      'contract.funded',
      'contract.refunded',
      'contract.released',
      'contract.verification.completed',
      'service.webhook.test',
      'service.webhook.verify',
      'template.version.deprecated',
      'template.version.published',
      'template.version.yanked',
    ]);
    for (const hook of Object.values(doc.webhooks) as { post: { parameters: { name: string }[] } }[]) {
      const headers = hook.post.parameters.map((p) => p.name);
      expect(headers).toEqual(
        expect.arrayContaining([
          'x-service-timestamp',
          'x-service-signature',
          'webhook-id',
          'webhook-timestamp',
          'webhook-signature',
        ]),
      );
    }
  });

  it('is served at GET /openapi.json without a key', async () => {
    const res = await fetch(`${api.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual(JSON.parse(written));
  });
});

describe('holding answers to the document', () => {
  const route = routeNamed('createAgent');
  const agent = {
    id: 'agt_01J00000000000000000000000',
    name: 'a',
    webhook_url: null,
    events: [],
    webhook_status: 'DISABLED',
    webhook_disabled_reason: null,
    last_verified_at: null,
    schema_versions: {},
    rate_limit: null,
    filter: null,
    filter_never_matches: false,
    headers: [],
    created_at: '2026-01-01T00:00:00.000Z',
    webhook_circuit: { state: 'closed', failures: 0, open_until: null, max_requests_at_once: 2 },
  };
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) => ({
    status,
    headers: {
      'x-request-id': 'r',
      'content-type': 'application/json; charset=utf-8',
      location: '/api/v1/agents/x',
      ...headers,
    },
    body: JSON.stringify(body),
  });

  it('accepts a documented answer', () => {
    expect(openApiProblems(route, answer(201, agent))).toEqual([]);
  });

  it('refuses an undocumented field, a wrong type, an undocumented status, a missing header and another media type', () => {
    expect(openApiProblems(route, answer(201, { ...agent, secret: 'x' })).join()).toMatch(/additional properties/);
    expect(openApiProblems(route, answer(201, { ...agent, webhook_url: 3 })).join()).toMatch(/webhook_url/);
    expect(openApiProblems(route, answer(418, agent)).join()).toMatch(/status not documented/);
    expect(openApiProblems(route, answer(201, agent, { location: undefined as unknown as string })).join()).toMatch(
      /Location missing/,
    );
    expect(openApiProblems(route, answer(201, agent, { 'content-type': 'text/plain' })).join()).toMatch(
      /content-type text\/plain/,
    );
    expect(openApiProblems(route, answer(400, { error: { code: 'no_such_code', message: 'x' } })).join()).toMatch(
      /code/,
    );
  });

  describe('a server-sent event stream', () => {
    const stream = routeNamed('streamAgentEvents');
    const event = {
      id: 'evt_01J00000000000000000000000',
      type: 'contract.funded',
      created_at: '2026-01-01T00:00:00.000Z',
      agent_id: 'agt_01J00000000000000000000000',
      schema_version: 1,
      data: { contract_id: 'ctr_01J00000000000000000000000', status: 'FUNDED', amount_cents: 1 },
    };
    const frame = (e: Record<string, unknown>, id = e['id'], type = e['type']) =>
      `id: ${String(id)}\nevent: ${String(type)}\ndata: ${JSON.stringify(e)}\n\n`;
    const sse = (body: string) =>
      openApiProblems(stream, {
        status: 200,
        headers: { 'x-request-id': 'r', 'content-type': 'text/event-stream' },
        body,
      });

    it('accepts documented frames, heartbeats, the retry line and a frame cut off at the end', () => {
      expect(
        sse(
          `retry: 1000\n: connected\n\nid: ${event.id}\n\n${frame(event)}: heartbeat\n\n${frame(event).slice(0, 30)}`,
        ),
      ).toEqual([]);
    });

    it('refuses data that is not the documented event, a frame without data, and an id or event that is not its data’s', () => {
      expect(sse(frame({ ...event, secret: 'x' })).join()).toMatch(/stream data does not match/);
      expect(sse(frame({ ...event, type: 'contract.exploded' }, event.id, 'contract.exploded')).join()).toMatch(
        /stream data does not match/,
      );
      expect(sse('id: 1\nevent: x\n\n').join()).toMatch(/without one JSON data line/);
      expect(sse(frame(event, 'evt_other')).join()).toMatch(/id\/event are not/);
      expect(sse(frame(event, event.id, 'contract.released')).join()).toMatch(/id\/event are not/);
    });
  });
});
