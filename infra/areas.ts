/**
 * The API's areas: each is one nested stack of the API stack holding its routes' functions,
 * resources and methods, so the API grows by area and no stack nears CloudFormation's limits.
 * A route belongs to the area whose prefix is the longest one its path starts with (whole
 * segments); a path no prefix names belongs to `Platform`. A new base path or a large new part
 * of the API gets a row here (docs/deployment.md, "Growing").
 *
 * Moving a route from one area to another replaces its function under the same name in another
 * stack, which CloudFormation refuses (the name exists until the old stack's update deletes it):
 * rename the route, or remove it in one deploy and add it in the next.
 */
import { BASE_PATHS } from '../lib/core/settings.ts';
import type { Route } from '../lib/routes.ts';

export const AREA_PREFIXES: Readonly<Record<string, readonly string[]>> = {
  Platform: ['/'],
  Marketplace: [BASE_PATHS.marketplace],
  Agents: [`${BASE_PATHS.agents}/agents`, `${BASE_PATHS.agents}/event-types`],
  Contracts: [`${BASE_PATHS.agents}/contracts`],
};

export const AREAS = Object.keys(AREA_PREFIXES);

const segments = (path: string): string[] => path.split('/').filter(Boolean);

/** Whether `path` is `prefix` or below it, segment by segment. */
function isUnder(path: string, prefix: string): boolean {
  const p = segments(prefix);
  const s = segments(path);
  return p.length <= s.length && p.every((segment, i) => s[i] === segment);
}

export function areaOf(route: Pick<Route, 'path'>): string {
  let best = { area: 'Platform', depth: -1 };
  for (const [area, prefixes] of Object.entries(AREA_PREFIXES)) {
    for (const prefix of prefixes) {
      const depth = segments(prefix).length;
      if (isUnder(route.path, prefix) && depth > best.depth) best = { area, depth };
    }
  }
  return best.area;
}

/**
 * API Gateway resources the API stack itself owns: every path strictly above an area prefix
 * (`/api`, `/api/v1`, `/v1`), since several areas hang their own resources below them.
 */
export function sharedPaths(): string[] {
  const paths = new Set<string>();
  for (const prefixes of Object.values(AREA_PREFIXES)) {
    for (const prefix of prefixes) {
      const parts = segments(prefix);
      for (let i = 1; i < parts.length; i++) paths.add(`/${parts.slice(0, i).join('/')}`);
    }
  }
  return [...paths].sort();
}
