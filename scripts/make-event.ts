/**
 * Writes a sample REST proxy event for a route to stdout, for events/<route>.json:
 * `npm run --silent make-event -- getTemplate '{"pathParameters":{"id":"http-uptime-check"}}' > events/getTemplate.json`.
 * The caller is the demo user `npm start` seeds (local/demo/identity.ts), so the sample runs against
 * a fresh local runtime; edit the JSON for other cases.
 */
import { routes } from '../lib/routes.ts';
import { DEMO_CALLER } from '../local/demo/identity.ts';
import { type ProxyEventInit, proxyEvent } from '../local/gateway/proxy-event.ts';

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
  ...(route.auth ? { caller: DEMO_CALLER } : {}),
});
event.requestContext.requestTimeEpoch = 1795860000000;
process.stdout.write(`${JSON.stringify(event, null, 2)}\n`);
