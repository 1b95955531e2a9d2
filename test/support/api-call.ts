/**
 * One API call over real HTTP with a key (or a portal token), for tests that drive a runtime from
 * outside: the answer's JSON, or an error naming the call when it is not 2xx.
 */
export async function apiCall(base: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const answer = await apiAnswer(base, key, method, path, body);
  if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** The same call, answered whatever its status: for tests that expect a refusal. */
export async function apiAnswer(
  base: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any }> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : undefined };
}
