/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles only (infra/lambda-function.ts aliases
 * it): the DynamoDB client builds an endpoint-discovery cache with it whether or not discovery is
 * on (it is off), and mnemonist with its helpers is about 7 KB of every bundle. This is a real
 * least-recently-used cache on a Map, with the methods the SDK's EndpointCache calls.
 */
export default class SmallLru<K, V> {
  private readonly entries = new Map<K, V>();

  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Reads without making the entry recent. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  set(key: K, value: V): void {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value as K);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}
