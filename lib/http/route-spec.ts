import type * as z from '../zod.ts';

/** The request shapes of a route, as its handler declares them; the OpenAPI document reads them from here. */
export interface RouteSpecOf {
  body?: z.ZodMiniType;
  query?: z.ZodMiniType;
  params?: z.ZodMiniType;
}

/** Hangs the spec on the handler function, so a script can read what a route accepts without a second copy. */
export const withRouteSpec = <H>(handler: H, spec: RouteSpecOf): H & { routeSpec: RouteSpecOf } =>
  Object.assign(handler as object, { routeSpec: spec }) as H & { routeSpec: RouteSpecOf };
