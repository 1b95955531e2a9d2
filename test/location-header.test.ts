import { describe, expect, it } from 'vitest';
import { publicPathPrefix } from '../lib/http/public-path.ts';
import { invokeRoute, proxyEvent } from '../local/gateway/proxy-event.ts';
import { createTestUser, routeNamed } from './support/lambda.ts';

/**
 * On the execute-api URL API Gateway hands the function `path` without the stage and
 * `requestContext.path` with it; behind a custom domain mapped at its root both are the same.
 */
async function createAgentCalledAt(seenPath: (path: string) => string) {
  const route = routeNamed('createAgent');
  const user = await createTestUser();
  const event = proxyEvent({
    route,
    caller: user,
    path: route.path,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'bot' }),
  });
  event.requestContext.path = seenPath(route.path);
  const res = await invokeRoute(route, event);
  expect(res.statusCode).toBe(201);
  return { id: JSON.parse(res.body).id as string, location: res.headers?.['location'] };
}

describe('Location header', () => {
  it('includes the stage when the API is called on its execute-api URL', async () => {
    const { id, location } = await createAgentCalledAt((path) => `/prod${path}`);
    expect(location).toBe(`/prod/api/v1/agents/${id}`);
  });

  it('is the bare route path behind a custom domain mapped at its root', async () => {
    const { id, location } = await createAgentCalledAt((path) => path);
    expect(location).toBe(`/api/v1/agents/${id}`);
  });

  it('takes only plain path segments as a prefix', () => {
    const at = (seen: string, path = '/api/v1/agents') =>
      publicPathPrefix({ path, requestContext: { path: seen } as never });
    expect(at('/dev/api/v1/agents')).toBe('/dev');
    expect(at('/a/b/api/v1/agents')).toBe('/a/b');
    expect(at('//evil.example/api/v1/agents')).toBe('');
    expect(at('/x y/api/v1/agents')).toBe('');
    expect(at('/other/path')).toBe('');
  });
});
