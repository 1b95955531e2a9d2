import { describe, expect, it } from 'vitest';
import { createTestUser } from './support/lambda.ts';
import { useLocalApi } from './support/local-api.ts';

const api = useLocalApi();

describe('local API Gateway and the shared HTTP stack', () => {
  it('answers GET /health without a key, with x-request-id', async () => {
    const res = await fetch(`${api.url}/health`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('refuses a missing or unknown key with 401 in the error format', async () => {
    for (const headers of [{}, { authorization: 'Bearer mk_nope' }, { authorization: 'Basic abc' }]) {
      const res = await fetch(`${api.url}/v1/marketplace/categories`, { headers });
      expect(res.status).toBe(401);
      expect(res.headers.get('x-request-id')).toBeTruthy();
      expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
    }
  });

  it('answers an unknown path with 404 not_found', async () => {
    const user = await createTestUser();
    const res = await fetch(`${api.url}/v1/marketplace/nothing-here`, {
      headers: { authorization: `Bearer ${user.apiKey}` },
    });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_found');
  });
});
