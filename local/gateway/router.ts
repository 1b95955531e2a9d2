import type { Route } from '../../lib/routes.ts';

export interface RouteMatch {
  route: Route;
  pathParameters: Record<string, string> | null;
}

interface Compiled {
  route: Route;
  segments: string[];
  literals: number;
}

/** A known path asked with a method it does not take: the methods it does take. */
export interface WrongMethod {
  allow: string[];
}

/**
 * API Gateway's matching for the local runtime: a literal segment beats a `{param}` one, so
 * `/templates/featured` wins over `/templates/{id}`, for every method: as in API Gateway, the
 * resource is chosen first, and a method it lacks is not looked for in a less specific one
 * (PATCH /templates/featured is not an update of the template "featured"). Unknown path →
 * undefined; known path with another method → the methods of that path.
 */
export function createRouter(table: readonly Route[]) {
  const compiled: Compiled[] = table
    .map((route) => {
      const segments = route.path.split('/').filter(Boolean);
      return { route, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
    })
    .sort((a, b) => b.literals - a.literals);

  return function match(method: string, path: string): RouteMatch | WrongMethod | undefined {
    const parts = path.split('/').filter(Boolean);
    let resource: string | undefined;
    const allow: string[] = [];
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length || (resource !== undefined && route.path !== resource)) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let i = 0; i < segments.length && ok; i++) {
        const seg = segments[i]!;
        const part = parts[i]!;
        if (seg.startsWith('{')) {
          try {
            params[seg.slice(1, -1)] = decodeURIComponent(part);
          } catch {
            ok = false;
          }
        } else ok = seg === part;
      }
      if (!ok) continue;
      resource = route.path;
      if (route.method === method) {
        return { route, pathParameters: Object.keys(params).length ? params : null };
      }
      allow.push(route.method);
    }
    return resource === undefined ? undefined : { allow };
  };
}
