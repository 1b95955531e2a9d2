/**
 * Prints a route's sample REST proxy event (the one `npm run invoke -- <route>` sends: its row's
 * example from the demo caller, local/demo/sample-event.ts), with overrides on top, to save and edit
 * for another case: `npm run --silent make-event -- getTemplate '{"pathParameters":{"id":"sample-uptime-check"}}' > /tmp/event.json`,
 * then `npm run invoke -- getTemplate /tmp/event.json`.
 */
import { documentedRoutes } from '../lib/route-docs.ts';
import { routeSampleEvent, type SampleOverrides } from '../local/demo/sample-event.ts';

const [name, overrides = '{}'] = process.argv.slice(2);
const route = documentedRoutes.find((r) => r.name === name);
if (!route) {
  process.stderr.write(`usage: npm run --silent make-event -- <route> ['{"pathParameters":…,"query":…,"body":…}']\n`);
  process.exit(1);
}
process.stdout.write(`${JSON.stringify(routeSampleEvent(route, JSON.parse(overrides) as SampleOverrides), null, 2)}\n`);
