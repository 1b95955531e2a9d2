import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { documentedRoutes as routes } from '../lib/route-docs.ts';
import { socketRoutes, workers } from '../lib/routes.ts';
import { DEMO_CALLER } from '../local/demo/identity.ts';
import { routeSampleEvent, sampleFile } from '../local/demo/sample-event.ts';
import { createRouter } from '../local/gateway/router.ts';

const root = join(import.meta.dirname, '..');
const matchRoute = createRouter(routes);

describe('sample events: every function has one', () => {
  it.each(routes.map((r) => [r.name, r] as const))(
    '%s: its row makes a REST proxy event the router sends to it',
    (_name, route) => {
      const event = routeSampleEvent(route);
      expect(event.httpMethod).toBe(route.method);
      expect(event.resource).toBe(route.path);
      // The path the example fills in is one API Gateway would route here, with the same parameters.
      expect(matchRoute(route.method, event.path)).toEqual({
        route,
        pathParameters: event.pathParameters,
      });
      if (route.auth) expect(event.requestContext.authorizer).toMatchObject({ userId: DEMO_CALLER.userId });
      if (route.doc.example?.body !== undefined) expect(JSON.parse(event.body!)).toEqual(route.doc.example.body);
    },
  );

  it('refuses a row whose path names a parameter its example does not give', () => {
    const route = routes.find((r) => r.path.includes('{delivery_id}'))!;
    const { params: _dropped, ...rest } = route.doc.example!;
    expect(() => routeSampleEvent({ ...route, doc: { ...route.doc, example: rest } })).toThrow(
      `no value for {id} of ${route.path}`,
    );
  });

  it.each(socketRoutes.map((r) => [r.name, r] as const))(
    '%s has a WebSocket event for its route key in events/',
    (_name, route) => {
      expect(existsSync(sampleFile(route.name)), `events/${route.name}.json`).toBe(true);
      const event = JSON.parse(readFileSync(sampleFile(route.name), 'utf8')) as {
        requestContext: { routeKey: string };
      };
      expect(event.requestContext.routeKey).toBe(route.routeKey);
    },
  );

  it.each(Object.keys(workers))('%s has a sample event in events/', (name) => {
    expect(existsSync(sampleFile(name)), `events/${name}.json`).toBe(true);
  });

  it('events/ holds only the samples a row cannot make (no file per route)', () => {
    const files = readdirSync(join(root, 'events')).map((f) => f.replace(/\.json$/, ''));
    expect(files.sort()).toEqual([...Object.keys(workers), ...socketRoutes.map((r) => r.name)].sort());
  });

  it('npm run invoke runs a handler with its sample event and prints the result', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [join(root, 'scripts/invoke.ts'), 'health'], {
      cwd: root,
      env: { ...process.env, LOG_LEVEL: 'silent' },
    });
    const result = JSON.parse(stdout) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ status: 'ok' });
  });
});
