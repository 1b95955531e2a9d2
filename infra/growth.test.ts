/**
 * The deployment grows: every stack is at most half of every CloudFormation limit today, still
 * under every limit with 100 more routes (all in one area: the worst case, an area's nested stack
 * holds them), a route adds at most 4 resources, an area's nested stack holds nothing but its
 * routes', the dashboard does not grow with routes, and the table in docs/deployment.md is the one
 * these synths give (`npm run stack-sizes` rewrites it; a new route does not change it).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { routes } from '../lib/routes.ts';
import {
  areaStackProblems,
  bytesPerRoute,
  CFN_LIMITS,
  checkedCells,
  deploymentDocTable,
  isAreaStack,
  RESOURCES_PER_ROUTE,
  resourcesIn,
  roomTable,
  type StackUsage,
} from './stack-limits.ts';
import { EXTRA_ROUTES, generatedRoutes, synthApp } from './test-synth.ts';

let today: StackUsage[];
let half: StackUsage[];
let grown: StackUsage[];

beforeAll(() => {
  today = synthApp().usage;
  half = synthApp({ routes: [...routes, ...generatedRoutes(EXTRA_ROUTES / 2)] }).usage;
  grown = synthApp({ routes: [...routes, ...generatedRoutes(EXTRA_ROUTES)] }).usage;
}, 300_000);

const limitsOf = (u: StackUsage) => ({
  resources: u.resources,
  templateBytes: u.templateBytes,
  outputs: u.outputs,
  parameters: u.parameters,
});

describe('room to grow', () => {
  it('keeps every stack, nested ones too, at or below half of every CloudFormation limit today', () => {
    expect(today.length).toBeGreaterThanOrEqual(4);
    for (const u of today) {
      for (const [limit, used] of Object.entries(limitsOf(u)))
        expect(used, `${u.stack} ${limit}`).toBeLessThanOrEqual(CFN_LIMITS[limit as keyof typeof CFN_LIMITS] / 2);
    }
  });

  it(`keeps every stack under every limit with ${EXTRA_ROUTES} more routes`, () => {
    expect(grown.map((u) => u.stack)).toEqual(today.map((u) => u.stack));
    for (const u of grown) {
      for (const [limit, used] of Object.entries(limitsOf(u)))
        expect(used, `${u.stack} ${limit}`).toBeLessThan(CFN_LIMITS[limit as keyof typeof CFN_LIMITS]);
    }
    // The routes went where they belong: into their area's nested stack, nothing per route elsewhere.
    const grew = grown
      .filter((u) => u.resources !== today.find((t) => t.stack === u.stack)!.resources)
      .map((u) => u.stack);
    expect(grew).toEqual(['TemplateMarketplace-prod-Api/Marketplace']);
  });

  it('adds at most 4 resources per route, whatever its path (measured between 50 and 100 extra routes on new paths)', () => {
    const perRoute = (resourcesIn(grown) - resourcesIn(half)) / (EXTRA_ROUTES / 2);
    expect(perRoute).toBeLessThanOrEqual(4);
    // Function, method, resource and its CORS preflight: each generated route is on a path of its own.
    expect(perRoute).toBe(RESOURCES_PER_ROUTE.newPath);
  });

  it("holds in an area's nested stack only its routes' functions, methods and path resources (so the room per area in docs/deployment.md holds)", () => {
    const areas = today.filter(isAreaStack);
    expect(areas.map((u) => u.stack.split('/')[1])).toEqual(['Platform', 'Marketplace', 'Agents', 'Contracts']);
    expect([...today, ...grown].filter(isAreaStack).flatMap(areaStackProblems)).toEqual([]);
  });

  it('keeps the dashboard the same size however many routes there are', () => {
    const dashboard = (usage: StackUsage[]) => Math.max(...usage.map((u) => u.dashboardBytes));
    expect(dashboard(today)).toBeGreaterThan(0);
    expect(dashboard(grown)).toBe(dashboard(today));
    // CloudWatch takes a dashboard body up to 1 MB; this one stays far below.
    expect(dashboard(grown)).toBeLessThan(CFN_LIMITS.templateBytes / 4);
  });

  it('matches the table in docs/deployment.md (resources, outputs, parameters, routes held; run `npm run stack-sizes` after an infra change)', () => {
    expect(checkedCells(deploymentDocTable())).toEqual(
      checkedCells(roomTable(today, bytesPerRoute(today, grown, EXTRA_ROUTES))),
    );
  });

  it(`writes the same table with ${EXTRA_ROUTES / 2} more routes: a new route leaves docs/deployment.md as it is (CONTRIBUTING.md, "Add a route")`, () => {
    const perRoute = bytesPerRoute(today, grown, EXTRA_ROUTES);
    expect(roomTable(half, perRoute)).toBe(roomTable(today, perRoute));
  });
});
