import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { newId } from '../lib/core/ids.ts';
import { newPortalToken } from '../lib/portal/token.ts';
import { type Route, routes } from '../lib/routes.ts';
import { createAgent, publishTemplate, SIMPLE_SCHEMA } from './events/support.ts';
import { createTestUser, invoke, type TestUser } from './support/lambda.ts';
import { useLocalApi } from './support/local-api.ts';

/**
 * Every route of lib/routes.ts, driven by the table, with input classes that once made a 500
 * (issue 9, part 5): query keys and header names that are members of every plain object
 * (`multiQuery[k].push is not a function` in the local runtime), and JSON bodies with keys DynamoDB
 * cannot store (empty, lone surrogate) or that plain objects treat specially. The answer may be any
 * 2xx–4xx, never a 5xx, and every error is in the API's error format. Malformed path ids are
 * covered route by route in test/path-ids.test.ts.
 *
 * Each route gets its own user (and so its own API key), with its own agent, template and
 * contract, so the requests reach as deep as a real caller's would, and one route's requests never
 * add up against another's per-key limits.
 */
const api = useLocalApi();

const MEMBER_NAMES = ['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf'];
const BAD_BODIES = [
  '{"":1}',
  '{"a":{"":1}}',
  '{"\\ud800":1}',
  '{"a":["\\udc00"]}',
  '{"__proto__":{"x":1}}',
  '{"constructor":{"name":"Set"}}',
  '{"toString":1}',
];

interface World {
  user: TestUser;
  agent: string;
  template: string;
  contract: string;
}

async function world(): Promise<World> {
  const user = await createTestUser({ operator: true });
  const agent = await createAgent(user);
  const template = await publishTemplate(user, SIMPLE_SCHEMA);
  const contract = await invoke('createContract', {
    caller: user,
    body: { template_id: template, variables: {}, amount_cents: 100, agent_id: agent },
  });
  expect(contract.status, JSON.stringify(contract.body)).toBe(201);
  return { user, agent, template, contract: contract.body.id };
}

/**
 * One world per route, shared by the tests of that route (each of the tests below would otherwise
 * build its own: a user, an agent, a published template with its search index and a contract,
 * three times per route). The tests together send a route about 30 requests.
 */
const worlds = new Map<string, Promise<World>>();
function worldOf(route: string): Promise<World> {
  const made = worlds.get(route) ?? world();
  worlds.set(route, made);
  return made;
}

/** The route's path with real ids of `w` (a well-formed unknown one for deliveries, destinations and portal links). */
function pathOf(route: Route, w: World): string {
  const idFor = route.path.includes('/contracts/')
    ? w.contract
    : route.path.includes('/agents/') || route.path.includes('/webhook-keys/')
      ? w.agent
      : w.template;
  const path = route.path
    .replace('{delivery_id}', newId('dlv'))
    .replace('{destination_id}', newId('dst'))
    .replace('{link_id}', newPortalToken().linkId)
    .replace('{version}', '1.0.0')
    .replace('{template}', w.template)
    .replace('{id}', idFor);
  // A route with a path parameter named here by no one would be fuzzed as a 404 and prove nothing.
  if (path.includes('{')) throw new Error(`route-fuzz: give ${route.name}'s path parameter a value (${path})`);
  return path;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

/**
 * A raw HTTP request: headers as [name, value] pairs so names keep their exact case (`toString`, not
 * `tostring`). A streaming answer (server-sent events) is cut once its head arrived.
 */
function send(url: string, method: string, headers: [string, string][], body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method }, (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      if (contentType.startsWith('text/event-stream')) {
        resolve({ status: res.statusCode!, contentType, body: '' });
        req.destroy();
        return;
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () =>
        resolve({ status: res.statusCode!, contentType, body: Buffer.concat(chunks).toString('utf8') }),
      );
    });
    const byName = new Map<string, string[]>();
    for (const [name, value] of headers) byName.set(name, [...(byName.get(name) ?? []), value]);
    if (body !== undefined) {
      byName.set('Content-Type', ['application/json']);
      byName.set('Content-Length', [String(Buffer.byteLength(body))]); // a GET's body is not chunked
    }
    // setHeader keeps the name's case; several values go out as several header lines.
    for (const [name, values] of byName) req.setHeader(name, values);
    req.on('error', (err) =>
      req.destroyed && (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err),
    );
    req.end(body);
  });
}

/** Never a 5xx; an error is `{"error":{"code","message","details"?}}`. */
function expectNoServerError(answer: Answer, what: string): void {
  expect(answer.status, `${what} → ${answer.status} ${answer.body.slice(0, 200)}`).toBeLessThan(500);
  if (answer.status >= 400) {
    const parsed = JSON.parse(answer.body);
    expect(Object.keys(parsed), what).toEqual(['error']);
    expect(parsed.error, what).toEqual({
      code: expect.any(String),
      message: expect.any(String),
      ...(parsed.error.details ? { details: expect.any(Array) } : {}),
    });
  }
}

const auth = (w: World): [string, string] => ['Authorization', `Bearer ${w.user.apiKey}`];

describe('every route, through the local API Gateway', () => {
  it.each(routes.map((r) => [r.name] as const))(
    '%s never answers 5xx to member-named query keys, header names or unstorable bodies',
    async (name) => {
      const route = routes.find((r) => r.name === name)!;
      const w = await worldOf(name);
      const url = `${api.url}${pathOf(route, w)}`;

      for (const key of MEMBER_NAMES) {
        expectNoServerError(await send(`${url}?${key}=1`, route.method, [auth(w)]), `?${key}=1`);
        expectNoServerError(
          await send(`${url}?${key}=a&${key}=b&${key}=`, route.method, [auth(w)]),
          `?${key} repeated`,
        );
      }
      const allKeys = MEMBER_NAMES.map((k) => `${k}=x`).join('&');
      expectNoServerError(await send(`${url}?${allKeys}`, route.method, [auth(w)]), 'all member names as query keys');

      const memberHeaders = MEMBER_NAMES.flatMap((k): [string, string][] => [
        [k, 'x'],
        [k, 'y'],
      ]);
      expectNoServerError(await send(url, route.method, [auth(w), ...memberHeaders]), 'member names as header names');

      if (route.streaming) return; // a stream does not read a body
      for (const body of BAD_BODIES) {
        const answer = await send(url, route.method, [auth(w)], body);
        expectNoServerError(answer, `body ${body}`);
        // The shared stack refuses these before any route looks at the body (or its absence of one).
        expect(answer.status, `body ${body} → ${answer.body}`).toBe(400);
        expect(JSON.parse(answer.body).error.code).toBe('validation_error');
      }
    },
  );

  // Issue 19: the routes that declare no query parameters took any (`POST /agents?__proto__=1` → 201).
  it.each(routes.map((r) => [r.name] as const))(
    '%s answers an unknown query name with 400 validation_error naming it',
    async (name) => {
      const route = routes.find((r) => r.name === name)!;
      const w = await worldOf(name);
      for (const key of ['zz_unknown', ...MEMBER_NAMES]) {
        const answer = await send(
          `${api.url}${pathOf(route, w)}?${key}=1`,
          route.method,
          [auth(w)],
          route.method === 'GET' ? undefined : '{}',
        );
        expect(answer.status, `${name} ?${key}=1 → ${answer.status} ${answer.body.slice(0, 200)}`).toBe(400);
        expect(JSON.parse(answer.body).error.details, `${name} ?${key}=1`).toContainEqual({
          path: key,
          message: 'Unknown field.',
        });
      }
    },
  );

  it('a member-named query key on a route with a query is an unknown field, named as sent', async () => {
    const w = await world();
    for (const key of MEMBER_NAMES) {
      const answer = await send(`${api.url}/v1/marketplace/templates?${key}=1`, 'GET', [auth(w)]);
      expect(answer.status, answer.body).toBe(400);
      expect(JSON.parse(answer.body).error.details).toEqual([{ path: key, message: 'Unknown field.' }]);
    }
  });

  it('member-named headers are headers like any other: a GET answers as it does without them', async () => {
    const w = await world();
    const url = `${api.url}/api/v1/agents/${w.agent}`;
    const plain = await send(url, 'GET', [auth(w)]);
    const odd = await send(url, 'GET', [auth(w), ...MEMBER_NAMES.map((k): [string, string] => [k, 'x'])]);
    expect(plain.status).toBe(200);
    expect(odd.status).toBe(200);
    expect(JSON.parse(odd.body)).toEqual(JSON.parse(plain.body));
  });
});

describe('every route, handler stack alone (query maps as AWS delivers them: own keys, any text)', () => {
  const oddQueries: Record<string, string>[] = [
    Object.fromEntries(MEMBER_NAMES.map((k) => [k, 'x'])),
    { '\ud800': 'x' },
    { '': 'x' },
    { after: '\udc00', cursor: '\ud800', search: '\ud800\ud800', limit: '\udfff' },
  ];

  it.each(routes.filter((r) => !r.streaming).map((r) => [r.name] as const))('%s never answers 5xx', async (name) => {
    const route = routes.find((r) => r.name === name)!;
    const w = await worldOf(name);
    const ids = pathOf(route, w).split('/');
    const params = Object.fromEntries(
      [...route.path.split('/').entries()]
        .filter(([, seg]) => seg.startsWith('{'))
        .map(([i, seg]) => [seg.slice(1, -1), ids[i]!]),
    );
    for (const query of oddQueries) {
      const res = await invoke(name, {
        caller: w.user,
        params,
        query,
        headers: Object.fromEntries(MEMBER_NAMES.map((k) => [k, 'x'])),
      });
      expect(res.status, `${name} ${JSON.stringify(query)} → ${JSON.stringify(res.body)}`).toBeLessThan(500);
    }
  });
});
