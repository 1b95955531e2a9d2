/** What the benchmarks that go through the local API share: one authenticated JSON call, and percentiles. */
export async function api<T>(base: string, key: string, method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** The p-th percentile of ascending `sorted` values (nearest rank). */
export const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

/** The p-th percentile of `values` in any order (a sorted copy is read). */
export const percentileOf = (values: readonly number[], p: number): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    p,
  );

/** A public template with no variables or checks: what contracts in a benchmark are made from. */
export const publishBenchTemplate = (base: string, key: string) =>
  api<{ id: string }>(base, key, 'POST', '/v1/marketplace/templates', {
    name: 'Bench',
    slug: `bench-${Date.now()}`,
    category: 'other',
    version: '1.0.0',
    schema: { variables: [], checks: [] },
  });
