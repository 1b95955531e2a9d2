/**
 * Writes a sample REST proxy event for a route to stdout, for events/<route>.json:
 * `npm run --silent make-event -- getTemplate '{"pathParameters":{"id":"http-uptime-check"}}' > events/getTemplate.json`.
 * The caller is the demo-style placeholder user; edit the JSON for other cases.
 */
import { routes } from '../lib/routes.ts';
import { proxyEvent, type ProxyEventInit } from '../local/proxy-event.ts';

const [name, overrides = '{}'] = process.argv.slice(2);
const route = routes.find((r) => r.name === name);
if (!route) {
  process.stderr.write(`usage: npm run --silent make-event -- <route> ['{"pathParameters":…,"query":…,"body":…}']\n`);
  process.exit(1);
}
const extra = JSON.parse(overrides) as Partial<ProxyEventInit> & { body?: unknown };
const body = extra.body === undefined ? null : typeof extra.body === 'string' ? extra.body : JSON.stringify(extra.body);
const event = proxyEvent({
  ...extra,
  route,
  body,
  headers: { ...(body ? { 'Content-Type': 'application/json' } : {}), ...extra.headers },
  requestId: 'c6af9ac6-7b61-11e6-9a41-93e8deadbeef',
  ...(route.auth
    ? { caller: { userId: '3f9c2a4e-8b1d-4c6f-9e2a-7d5b1c0a9e11', workspaceId: '8d2e6f1a-4b3c-4d5e-8f9a-0b1c2d3e4f50', name: 'Sample User', verified: true, operator: false } }
    : {}),
});
event.requestContext.requestTimeEpoch = 1795860000000;
process.stdout.write(`${JSON.stringify(event, null, 2)}\n`);
