import type { APIGatewayProxyResult } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { AppError, MAX_DETAILS } from '../lib/core/errors.ts';
import { httpRoute, MAX_BODY_BYTES } from '../lib/http/middleware.ts';
import { ok } from '../lib/http/responses.ts';
import { MAX_ARRAY_ITEMS } from '../lib/http/storable.ts';
import type { Route } from '../lib/routes.ts';
import * as z from '../lib/zod.ts';
import { proxyEvent } from '../local/gateway/proxy-event.ts';
import { lambdaContext } from '../local/lambda/context.ts';
import { createTestUser, type TestUser } from './support/lambda.ts';

// The shared stack, exercised with a route made here so every rule is tested once, in one place.
const route: Route = {
  name: 'echo',
  method: 'POST',
  path: '/echo/{id}',
  handler: '',
  auth: true,
  access: 'none',
};
const echo = httpRoute(
  {
    params: z.strictObject({ id: z.string().check(z.regex(/^\d+$/)) }),
    query: z.strictObject({ limit: z.optional(z.string().check(z.regex(/^\d+$/))) }),
    body: z.strictObject({ name: z.string().check(z.minLength(1)), tags: z.optional(z.array(z.string())) }),
  },
  async ({ body, params, caller }) => {
    if (body.name === 'boom') throw new Error('ConditionalCheckFailedException: arn:aws:dynamodb:secret-table');
    if (body.name === 'gone') throw new AppError('not_found', 'Template not found.');
    return ok({ id: params.id, name: body.name, user: caller.userId });
  },
);

let user: TestUser;
beforeAll(async () => {
  user = await createTestUser();
});

async function call(init: {
  body?: string | null;
  headers?: Record<string, string>;
  id?: string;
  query?: Record<string, string>;
  anonymous?: boolean;
}) {
  const event = proxyEvent({
    route,
    caller: init.anonymous ? undefined : user,
    pathParameters: { id: init.id ?? '7' },
    query: init.query ?? null,
    headers: init.headers ?? { 'Content-Type': 'application/json' },
    body: init.body === undefined ? JSON.stringify({ name: 'ok' }) : init.body,
  });
  const res = (await echo(event, lambdaContext('echo', 10))) as APIGatewayProxyResult;
  return { status: res.statusCode, headers: res.headers ?? {}, body: res.body ? JSON.parse(res.body) : undefined };
}

describe('the shared HTTP stack', () => {
  it('passes parsed input and the caller to the route', async () => {
    const res = await call({});
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ id: '7', name: 'ok', user: user.userId });
    expect(res.headers['x-request-id']).toBeTruthy();
    expect(res.headers['content-type']).toMatch(/^application\/json/);
  });

  it('accepts a JSON media type with parameters, in any case', async () => {
    expect((await call({ headers: { 'content-type': 'Application/JSON; charset=utf-8' } })).status).toBe(200);
  });

  it('answers 415 for a body that is not declared JSON', async () => {
    for (const headers of [
      {},
      { 'content-type': 'text/plain' },
      { 'content-type': 'application/x-www-form-urlencoded' },
    ] as Record<string, string>[]) {
      const res = await call({ headers });
      expect(res.status).toBe(415);
      expect(res.body.error.code).toBe('unsupported_media_type');
    }
  });

  it('answers 413 above 256 KiB and accepts exactly 256 KiB', async () => {
    const padding = (size: number) => JSON.stringify({ name: 'x'.repeat(size - JSON.stringify({ name: '' }).length) });
    expect((await call({ body: padding(MAX_BODY_BYTES + 1) })).status).toBe(413);
    expect((await call({ body: padding(MAX_BODY_BYTES + 1) })).body.error.code).toBe('payload_too_large');
    expect((await call({ body: padding(MAX_BODY_BYTES) })).status).toBe(200);
  });

  it('answers 400 invalid_json for a broken body', async () => {
    for (const body of ['{', '{"name": "x",}', 'nul', '\u0000']) {
      const res = await call({ body });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: { code: 'invalid_json', message: expect.any(String) } });
    }
  });

  it('lists every validation problem with its path, unknown fields included', async () => {
    const body = await call({ body: JSON.stringify({ name: '', tags: ['a', 3], extra: true }) });
    expect(body.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'name', message: expect.any(String) },
        { path: 'tags.1', message: expect.any(String) },
        { path: 'extra', message: 'Unknown field.' },
      ]),
    );
    const query = await call({ query: { limit: 'x', other: '1' } });
    expect(query.body.error.details).toEqual(
      expect.arrayContaining([
        { path: 'limit', message: expect.any(String) },
        { path: 'other', message: 'Unknown field.' },
      ]),
    );
  });

  it(`lists at most ${MAX_DETAILS} problems, the last entry counting the rest`, async () => {
    // Wrong items by the thousand; listed in full, 125,000 of them made a 21 MB answer (Lambda's limit is 6 MB).
    const body = `{"name":"ok","tags":[${Array(MAX_ARRAY_ITEMS).fill('1').join(',')}]}`;
    const res = await call({ body });
    expect(res.status).toBe(400);
    const details = res.body.error.details;
    expect(details).toHaveLength(MAX_DETAILS);
    expect(details.slice(0, MAX_DETAILS - 1)).toEqual(
      Array.from({ length: MAX_DETAILS - 1 }, (_, i) => ({ path: `tags.${i}`, message: expect.any(String) })),
    );
    expect(details.at(-1)).toEqual({ path: '', message: `…and ${MAX_ARRAY_ITEMS - (MAX_DETAILS - 1)} more problems.` });
    // More items than any array may hold (125,000 fit in 256 KiB) are refused before any schema runs.
    const huge = await call({ body: `{"name":"ok","tags":[${Array(125_000).fill('1').join(',')}]}` });
    expect(huge.status).toBe(400);
    expect(huge.body.error.details).toEqual([
      { path: 'tags', message: `At most ${MAX_ARRAY_ITEMS} items in an array.` },
    ]);
    const exactly = await call({ body: JSON.stringify({ name: 'ok', tags: Array(MAX_DETAILS).fill(1) }) });
    expect(exactly.body.error.details.map((d: { path: string }) => d.path)).toEqual(
      Array.from({ length: MAX_DETAILS }, (_, i) => `tags.${i}`),
    );
  });

  it('answers 404 for a path id that cannot name anything, before looking at the rest', async () => {
    const res = await call({ body: JSON.stringify({ name: '' }), id: 'abc', query: { limit: 'x' } });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String) } });
  });

  it('requires a body where the route takes one', async () => {
    const res = await call({ body: null });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
  });

  it('maps domain errors to their status and hides everything else behind a bare 500', async () => {
    const gone = await call({ body: JSON.stringify({ name: 'gone' }) });
    expect(gone.status).toBe(404);
    expect(gone.body).toEqual({ error: { code: 'not_found', message: 'Template not found.' } });
    const boom = await call({ body: JSON.stringify({ name: 'boom' }) });
    expect(boom.status).toBe(500);
    expect(boom.body.error.code).toBe('internal_error');
    expect(JSON.stringify(boom.body)).not.toMatch(/Conditional|arn:|secret|at /);
    expect(boom.headers['x-request-id']).toBeTruthy();
  });

  it('lets a route without a body take none or {}, and refuses anything else', async () => {
    const bare = httpRoute({}, async () => ok({ done: true }));
    const send = async (body: string | null) => {
      const event = proxyEvent({ route, caller: user, headers: { 'content-type': 'application/json' }, body });
      return (await bare(event, lambdaContext('bare', 10))) as APIGatewayProxyResult;
    };
    expect((await send(null)).statusCode).toBe(200);
    expect((await send('{}')).statusCode).toBe(200);
    expect((await send(' { } ')).statusCode).toBe(200);
    for (const body of ['{"a":1}', '[]', '"x"', '0']) {
      const res = await send(body);
      expect(res.statusCode, body).toBe(400);
      expect(JSON.parse(res.body).error.code).toBe('validation_error');
    }
    expect((await send('{')).statusCode).toBe(400);
  });

  it('answers 401 when the authorizer context is missing', async () => {
    const res = await call({ anonymous: true });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });
});
