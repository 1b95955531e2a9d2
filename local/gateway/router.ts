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

/**
 * API Gateway's matching for the local runtime: a literal segment beats a `{param}` one, so
 * `/templates/featured` wins over `/templates/{id}`. Unknown path → undefined; known path with
 * another method → 'method'.
 */
export function createRouter(table: readonly Route[]) {
  const compiled: Compiled[] = table
    .map((route) => {
      const segments = route.path.split('/').filter(Boolean);
      return { route, segments, literals: segments.filter((s) => !s.startsWith('{')).length };
    })
    .sort((a, b) => b.literals - a.literals);

  return function match(method: string, path: string): RouteMatch | 'method' | undefined {
    const parts = path.split('/').filter(Boolean);
    let pathMatched = false;
    for (const { route, segments } of compiled) {
      if (segments.length !== parts.length) continue;
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
      pathMatched = true;
      if (route.method === method) {
        return { route, pathParameters: Object.keys(params).length ? params : null };
      }
    }
    return pathMatched ? 'method' : undefined;
  };
}
