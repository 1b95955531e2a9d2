/**
 * `npm run stack-sizes`: synthesizes the app (without bundling) today and with 100 generated
 * routes, writes docs/deployment.md's table between its stack-sizes markers (what each stack holds
 * and what a route adds: it does not change when a route is added; infra/growth.test.ts fails when
 * it is stale), and prints each stack's size today and with the 100 routes.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { bytesPerRoute, resourcesIn, roomTable, usageTable } from '../infra/stack-limits.ts';
import { EXTRA_ROUTES, generatedRoutes, synthApp } from '../infra/test-synth.ts';
import { routes } from '../lib/routes.ts';

const START = '<!-- stack-sizes:start -->';
const END = '<!-- stack-sizes:end -->';

const today = synthApp().usage;
const grown = synthApp({ routes: [...routes, ...generatedRoutes(EXTRA_ROUTES)] }).usage;
const table = roomTable(today, bytesPerRoute(today, grown, EXTRA_ROUTES));
const perRoute = (resourcesIn(grown) - resourcesIn(today)) / EXTRA_ROUTES;

const file = new URL('../docs/deployment.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const start = doc.indexOf(START);
const end = doc.indexOf(END);
if (start < 0 || end < start) throw new Error(`docs/deployment.md has no ${START} … ${END} block`);
writeFileSync(file, `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`);
console.log(
  `${usageTable(today, grown, EXTRA_ROUTES)}\n\n${perRoute.toFixed(2)} resources per added route on average (${EXTRA_ROUTES} routes on new paths, one new parent path included).`,
);
