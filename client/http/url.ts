/** Building request URLs: the service host, the two base paths, encoded path segments, queries. */

export const MARKETPLACE_BASE = '/v1/marketplace';
export const AGENTS_BASE = '/api/v1';

/**
 * The service host with any stage prefix kept, e.g. `https://api.example.com` or
 * `https://abc.execute-api.eu-west-1.amazonaws.com/prod`. A URL that already ends in one of the
 * base paths (a documented base URL ends in `/v1/marketplace`) is accepted too.
 */
export function serviceRoot(baseUrl: string): string {
  const url = new URL(baseUrl);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new TypeError(`baseUrl must be an http(s) URL, got ${url.protocol}`);
  let path = url.pathname.replace(/\/+$/, '');
  for (const base of [MARKETPLACE_BASE, AGENTS_BASE]) {
    if (path.endsWith(base)) path = path.slice(0, -base.length);
  }
  return `${url.origin}${path}`;
}

/**
 * A tagged template that encodes every interpolated value as one path segment, so an id such as
 * `../x` or `a/b` can never address another route.
 */
export function path(strings: TemplateStringsArray, ...values: string[]): string {
  return strings.reduce((out, part, i) => out + part + (i < values.length ? encodeURIComponent(values[i]!) : ''), '');
}

export type QueryValue = string | number | boolean | undefined | null;

/** `?a=1&b=x` from the defined values; '' when there are none. */
export function queryString(params: Record<string, QueryValue> | undefined): string {
  if (!params) return '';
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null) search.append(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
}
