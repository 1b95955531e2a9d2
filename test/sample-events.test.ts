import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { routes, socketRoutes, workers } from '../lib/routes.ts';

const root = join(import.meta.dirname, '..');
const fixture = (name: string) => join(root, 'events', `${name}.json`);

describe('events/: one sample event per function', () => {
  it.each(routes.map((r) => [r.name, r] as const))(
    '%s has a REST proxy event for its method and path',
    (name, route) => {
      expect(existsSync(fixture(name)), `events/${name}.json`).toBe(true);
      const event = JSON.parse(readFileSync(fixture(name), 'utf8')) as {
        httpMethod: string;
        resource: string;
        requestContext: { authorizer: unknown };
      };
      expect(event.httpMethod).toBe(route.method);
      expect(event.resource).toBe(route.path);
      if (route.auth)
        expect(event.requestContext.authorizer).toMatchObject({
          userId: expect.any(String),
          workspaceId: expect.any(String),
        });
    },
  );

  it.each(socketRoutes.map((r) => [r.name, r] as const))(
    '%s has a WebSocket event for its route key',
    (name, route) => {
      expect(existsSync(fixture(name)), `events/${name}.json`).toBe(true);
      const event = JSON.parse(readFileSync(fixture(name), 'utf8')) as { requestContext: { routeKey: string } };
      expect(event.requestContext.routeKey).toBe(route.routeKey);
    },
  );

  it.each(Object.keys(workers))('%s has a sample event', (name) => {
    expect(existsSync(fixture(name)), `events/${name}.json`).toBe(true);
  });

  it('npm run invoke runs a handler with its sample event and prints the result', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(root, 'node_modules/tsx/dist/cli.mjs'), join(root, 'scripts/invoke.ts'), 'health', fixture('health')],
      {
        cwd: root,
        env: { ...process.env, LOG_LEVEL: 'silent' },
      },
    );
    const result = JSON.parse(stdout) as { statusCode: number; body: string };
    expect(result.statusCode).toBe(200);
    expect(JSON.parse(result.body)).toEqual({ status: 'ok' });
  });
});
