/** What a route function returns; the HTTP stack serialises it and adds the common headers. */
export interface HttpResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

export const ok = (body: unknown): HttpResult => ({ status: 200, body });
export const created = (body: unknown, location?: string): HttpResult => ({
  status: 201,
  body,
  ...(location ? { headers: { location } } : {}),
});
export const accepted = (body: unknown): HttpResult => ({ status: 202, body });
export const noContent = (): HttpResult => ({ status: 204 });
