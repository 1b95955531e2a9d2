import { describe, expect, it } from 'vitest';
import { allowedOrigins, corsHeaders, preflightHeaders } from '../lib/http/cors.ts';
import { routes } from '../lib/routes.ts';
import { createTestUser, invoke } from './support/lambda.ts';
import { useLocalApi } from './support/local-api.ts';

const api = useLocalApi();
const ORIGIN = 'https://app.example.com';

/** A concrete path for a route's `{param}` path (any value: the preflight is answered before any handler). */
const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');

describe('CORS through the local gateway (default: any origin)', () => {
  it('answers a preflight on every path of the route table with its methods and the allowed headers', async () => {
    for (const path of new Set(routes.map((r) => r.path))) {
      const res = await fetch(api.url + concrete(path), {
        method: 'OPTIONS',
        headers: {
          origin: ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization, idempotency-key',
        },
      });
      expect(res.status, path).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      const methods = res.headers.get('access-control-allow-methods')!.split(', ');
      for (const r of routes.filter((r) => r.path === path)) expect(methods, path).toContain(r.method);
      expect(res.headers.get('access-control-allow-headers')).toBe(
        'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, traceparent, tracestate',
      );
      // No route behind a preflight: it never needs a key.
      expect(res.headers.get('access-control-allow-credentials')).toBeNull();
    }
  });

  it('answers OPTIONS on an unknown path with a 404 that a page can still read', async () => {
    const res = await fetch(`${api.url}/nowhere`, { method: 'OPTIONS', headers: { origin: ORIGIN } });
    expect(res.status).toBe(404);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('answers a known path with a method it does not take 405, naming the ones it takes in Allow, with CORS', async () => {
    for (const path of new Set(routes.map((r) => r.path))) {
      const taken: string[] = routes.filter((r) => r.path === path).map((r) => r.method);
      const wrong = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'].find((m) => !taken.includes(m))!;
      const res = await fetch(api.url + concrete(path), { method: wrong, headers: { origin: ORIGIN } });
      expect(res.status, `${wrong} ${path}`).toBe(405);
      expect(res.headers.get('allow')!.split(', ').sort(), path).toEqual([...taken, 'OPTIONS'].sort());
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed');
    }
  });

  it("puts CORS headers on handlers' answers, the gateway's own errors and the event stream", async () => {
    const user = await createTestUser();
    const health = await fetch(`${api.url}/health`, { headers: { origin: ORIGIN } });
    expect(health.headers.get('access-control-allow-origin')).toBe('*');
    expect(health.headers.get('access-control-expose-headers')).toContain('x-request-id');
    const unauthorized = await fetch(`${api.url}/v1/marketplace/templates`, { headers: { origin: ORIGIN } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get('access-control-allow-origin')).toBe('*');
    const notFound = await fetch(`${api.url}/api/v1/agents/agt_nope`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${user.apiKey}` },
    });
    expect(notFound.status).toBe(404);
    expect(notFound.headers.get('access-control-allow-origin')).toBe('*');
    const agent = await fetch(`${api.url}/api/v1/agents`, {
      method: 'POST',
      headers: { origin: ORIGIN, authorization: `Bearer ${user.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'cors' }),
    });
    expect(agent.headers.get('access-control-allow-origin')).toBe('*');
    const { id } = (await agent.json()) as { id: string };
    const controller = new AbortController();
    const stream = await fetch(`${api.url}/api/v1/agents/${id}/events/stream`, {
      headers: { origin: ORIGIN, authorization: `Bearer ${user.apiKey}` },
      signal: controller.signal,
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    controller.abort();
  });
});

describe('CORS with a list of origins (a stage that names them)', () => {
  const origins = allowedOrigins({ CORS_ALLOWED_ORIGINS: ` ${ORIGIN}, https://admin.example.com ` });

  it('echoes a listed origin, says nothing to others, and always varies by Origin', () => {
    expect(origins).toEqual([ORIGIN, 'https://admin.example.com']);
    expect(corsHeaders(ORIGIN, origins)).toMatchObject({ 'access-control-allow-origin': ORIGIN, vary: 'Origin' });
    expect(corsHeaders('https://evil.example.com', origins)).toEqual({ vary: 'Origin' });
    expect(corsHeaders(undefined, origins)).toEqual({ vary: 'Origin' });
    expect(
      preflightHeaders('https://evil.example.com', ['GET'], origins)['access-control-allow-origin'],
    ).toBeUndefined();
  });

  it('treats an unset, empty or starred setting as any origin', () => {
    expect(allowedOrigins({})).toEqual(['*']);
    expect(allowedOrigins({ CORS_ALLOWED_ORIGINS: '' })).toEqual(['*']);
    expect(allowedOrigins({ CORS_ALLOWED_ORIGINS: `${ORIGIN},*` })).toEqual(['*']);
  });

  it('is what a handler answers when the stage sets CORS_ALLOWED_ORIGINS', async () => {
    const saved = process.env['CORS_ALLOWED_ORIGINS'];
    process.env['CORS_ALLOWED_ORIGINS'] = ORIGIN;
    try {
      const listed = await invoke('health', { headers: { Origin: ORIGIN } });
      expect(listed.headers['access-control-allow-origin']).toBe(ORIGIN);
      const other = await invoke('health', { headers: { Origin: 'https://evil.example.com' } });
      expect(other.headers['access-control-allow-origin']).toBeUndefined();
      expect(other.headers['vary']).toBe('Origin');
    } finally {
      if (saved === undefined) delete process.env['CORS_ALLOWED_ORIGINS'];
      else process.env['CORS_ALLOWED_ORIGINS'] = saved;
    }
  });
});
