/**
 * `npm run stack-sizes`: synthesizes the app (without bundling) today and with 100 generated
 * routes, and writes each stack's use of CloudFormation's limits into docs/deployment.md between
 * its stack-sizes markers (infra/growth.test.ts fails when the table there is stale).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resourcesIn, usageTable } from '../infra/stack-limits.ts';
import { EXTRA_ROUTES, generatedRoutes, synthApp } from '../infra/test-synth.ts';
import { routes } from '../lib/routes.ts';

const START = '<!-- stack-sizes:start -->';
const END = '<!-- stack-sizes:end -->';

const today = synthApp().usage;
const grown = synthApp({ routes: [...routes, ...generatedRoutes(EXTRA_ROUTES)] }).usage;
const table = usageTable(today, grown, EXTRA_ROUTES);
const perRoute = (resourcesIn(grown) - resourcesIn(today)) / EXTRA_ROUTES;

const file = new URL('../docs/deployment.md', import.meta.url);
const doc = readFileSync(file, 'utf8');
const start = doc.indexOf(START);
const end = doc.indexOf(END);
if (start < 0 || end < start) throw new Error(`docs/deployment.md has no ${START} … ${END} block`);
writeFileSync(file, `${doc.slice(0, start + START.length)}\n${table}\n${doc.slice(end)}`);
console.log(
  `${table}\n\n${perRoute.toFixed(2)} resources per added route on average (${EXTRA_ROUTES} routes on new paths, one new parent path included).`,
);
