import { describe, expect, it } from 'vitest';
import { ApiError, ConnectionError, MarketplaceClient } from '../../client/index.ts';
import { json, startScriptedServer } from './support/scripted-server.ts';

const serviceError = (code: string) => ({ error: { code, message: `it was ${code}` } });
const template = { id: '8c3c1c8e-2f7a-4a53-9d6e-1f9d3c1b2a10', slug: 'x' };

describe('client transport against a scripted HTTP server', async () => {
  const server = await startScriptedServer();
  const client = new MarketplaceClient({ apiKey: 'mk_test_key', baseUrl: server.url, maxRetries: 2, timeoutMs: 1_000 });

  it('sends the key as a bearer token, JSON bodies with their content type, encoded path segments and only the given query values', async () => {
    const emptyPage = { data: [], pagination: { limit: 5, offset: 0, total: 0, has_more: false, next_cursor: null } };
    server.answer((req, res) => (req.method === 'GET' ? json(res, 200, emptyPage) : json(res, 201, template)));
    await client.templates.list({ search: 'a&b c', limit: 5, category: undefined });
    await client.reviews.list('a/../b', {});
    await client.templates.publish({
      name: 'n',
      slug: 'sss',
      category: 'http',
      version: '1.0.0',
      schema: { checks: [], variables: [] },
    });
    const [list, reviews, publish] = server.requests;
    expect(list!.url).toBe('/v1/marketplace/templates?search=a%26b+c&limit=5');
    expect(list!.headers.authorization).toBe('Bearer mk_test_key');
    expect(list!.headers['content-type']).toBeUndefined();
    expect(reviews!.url).toBe('/v1/marketplace/templates/a%2F..%2Fb/reviews');
    expect(publish!.headers['content-type']).toBe('application/json');
    expect(JSON.parse(publish!.body)).toMatchObject({ slug: 'sss' });
  });

  it('accepts a baseUrl that already ends in a base path, and keeps a stage prefix', async () => {
    server.answer((_req, res) => json(res, 200, { data: [] }));
    await new MarketplaceClient({ apiKey: 'k', baseUrl: `${server.url}/v1/marketplace/` }).categories.list();
    await new MarketplaceClient({ apiKey: 'k', baseUrl: `${server.url}/prod/api/v1` }).agents.list();
    expect(server.requests.map((r) => r.url)).toEqual(['/v1/marketplace/categories', '/prod/api/v1/agents']);
  });

  it('maps an error response to ApiError with status, code, message, details and the request id', async () => {
    const details = [{ path: 'limit', message: 'Too big.' }];
    server.answer((_req, res) =>
      json(
        res,
        400,
        { error: { code: 'validation_error', message: 'Bad query.', details } },
        { 'x-request-id': 'req-123' },
      ),
    );
    const err = await client.templates.list({ limit: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 400,
      code: 'validation_error',
      message: 'Bad query.',
      details,
      requestId: 'req-123',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('keeps what a non-service error body said (a proxy 502), under code http_<status>', async () => {
    server.answer((_req, res) => res.writeHead(400, { 'content-type': 'text/html' }).end('<h1>Bad Gateway-ish</h1>'));
    const err = (await client.categories.list().catch((e: unknown) => e)) as ApiError;
    expect(err).toMatchObject({ status: 400, code: 'http_400', requestId: undefined });
    expect(err.message).toContain('Bad Gateway-ish');
  });

  it('reports a success status with a body that is not JSON as ApiError invalid_response', async () => {
    server.answer((_req, res) =>
      res
        .writeHead(200, { 'content-type': 'text/html', 'x-request-id': 'req-html' })
        .end('<html>captive portal</html>'),
    );
    await expect(client.categories.list()).rejects.toMatchObject({
      name: 'ApiError',
      status: 200,
      code: 'invalid_response',
      requestId: 'req-html',
    });
    expect(server.requests).toHaveLength(1);
  });

  it('retries a GET after 503 and 429, honouring Retry-After', async () => {
    server.answer((_req, res, attempt) => {
      if (attempt === 1) return json(res, 503, serviceError('internal_error'), { 'retry-after': '0' });
      if (attempt === 2) return json(res, 429, serviceError('rate_limited'), { 'retry-after': '0' });
      json(res, 200, { data: [{ name: 'http', count: 1 }] });
    });
    expect(await client.categories.list()).toEqual({ data: [{ name: 'http', count: 1 }] });
    expect(server.requests).toHaveLength(3);
  });

  it('gives up after maxRetries and throws the last error', async () => {
    server.answer((_req, res) =>
      json(res, 502, serviceError('internal_error'), { 'retry-after': '0', 'x-request-id': 'req-last' }),
    );
    await expect(client.templates.get('x')).rejects.toMatchObject({ status: 502, requestId: 'req-last' });
    expect(server.requests).toHaveLength(3);
  });

  it('does not wait out a Retry-After longer than a minute', async () => {
    server.answer((_req, res) => json(res, 429, serviceError('rate_limited'), { 'retry-after': '3600' }));
    await expect(client.categories.list()).rejects.toMatchObject({ status: 429 });
    expect(server.requests).toHaveLength(1);
  });

  it('sends every POST and PATCH with an Idempotency-Key and retries it with the same key', async () => {
    server.answer((_req, res, attempt) =>
      attempt === 1
        ? json(res, 503, serviceError('internal_error'), { 'retry-after': '0' })
        : json(res, 201, { id: 'agt_x' }),
    );
    await client.agents.create({ name: 'a' });
    const [first, second] = server.requests;
    expect(first!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.headers['idempotency-key']).toBe(first!.headers['idempotency-key']);
    server.answer((_req, res, attempt) =>
      attempt === 1
        ? json(res, 503, serviceError('internal_error'), { 'retry-after': '0' })
        : json(res, 200, { id: 'agt_x' }),
    );
    await client.agents.configureWebhook('agt_x', { webhook_url: 'https://e.example', events: ['contract.funded'] });
    const [patch, again] = server.requests;
    expect([patch!.method, again!.method]).toEqual(['PATCH', 'PATCH']);
    expect(patch!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(again!.headers['idempotency-key']).toBe(patch!.headers['idempotency-key']);
  });

  it('uses a new key for each call, and retries while a twin with the same key is still running (409 idempotency_key_in_use)', async () => {
    server.answer((_req, res, attempt) =>
      attempt === 1
        ? json(res, 409, serviceError('idempotency_key_in_use'), { 'retry-after': '0' })
        : json(res, 200, { id: 'ctr_x' }),
    );
    await client.contracts.fund('ctr_x');
    await client.contracts.fund('ctr_x');
    const keys = server.requests.map((r) => r.headers['idempotency-key']);
    expect(keys[0]).toBe(keys[1]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('retries install like every POST, and tells a first install from a repeat', async () => {
    const installation = {
      template_id: template.id,
      workspace_id: 'w',
      version: '1.0.0',
      installed_at: '2026-11-22T10:00:00.000Z',
    };
    server.answer((_req, res, attempt) =>
      attempt === 1
        ? json(res, 500, serviceError('internal_error'), { 'retry-after': '0' })
        : json(res, 201, installation),
    );
    expect(await client.templates.install(template.id)).toEqual({ ...installation, created: true });
    expect(server.requests.map((r) => r.method)).toEqual(['POST', 'POST']);
    server.answer((_req, res) => json(res, 200, installation));
    expect((await client.templates.install(template.id)).created).toBe(false);
  });

  it('does not retry a client error', async () => {
    server.answer((_req, res) => json(res, 404, serviceError('not_found')));
    await expect(client.agents.get('agt_x')).rejects.toMatchObject({ status: 404, code: 'not_found' });
    expect(server.requests).toHaveLength(1);
  });

  it('turns a hang into ConnectionError(timedOut) after timeoutMs, retrying only what is repeatable', async () => {
    server.answer(() => undefined); // never answers
    const quick = new MarketplaceClient({ apiKey: 'k', baseUrl: server.url, timeoutMs: 100, maxRetries: 1 });
    const err = await quick.agents.get('agt_x').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).timedOut).toBe(true);
    expect(server.requests).toHaveLength(2);
    // A POST and a PATCH are repeatable too (their Idempotency-Key makes a repeat harmless).
    server.answer(() => undefined);
    await expect(quick.agents.rotateWebhookSecret('agt_x')).rejects.toMatchObject({ timedOut: true });
    expect(server.requests).toHaveLength(2);
    server.answer(() => undefined);
    await expect(
      quick.agents.configureWebhook('agt_x', { webhook_url: 'https://e.example', events: ['contract.funded'] }),
    ).rejects.toMatchObject({ timedOut: true });
    expect(server.requests).toHaveLength(2);
  });

  it('reports a refused connection as ConnectionError, not timed out', async () => {
    const nowhere = new MarketplaceClient({ apiKey: 'k', baseUrl: 'http://127.0.0.1:1', maxRetries: 0 });
    const err = await nowhere.categories.list().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectionError);
    expect((err as ConnectionError).timedOut).toBe(false);
  });

  it("stops at once when the caller's signal aborts, with the caller's reason, and does not retry", async () => {
    server.answer(() => undefined);
    const controller = new AbortController();
    const reason = new Error('user gave up');
    setTimeout(() => controller.abort(reason), 50);
    await expect(client.templates.featured({ signal: controller.signal })).rejects.toBe(reason);
    expect(server.requests).toHaveLength(1);
  });

  it('refuses to be built without an API key or with a non-http base URL', () => {
    expect(() => new MarketplaceClient({ apiKey: '' })).toThrow(/apiKey/);
    expect(() => new MarketplaceClient({ apiKey: 'k', baseUrl: 'ftp://x' })).toThrow(/http/);
  });
});
