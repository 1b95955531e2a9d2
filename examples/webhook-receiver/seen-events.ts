/**
 * Which event ids were already handled. Deliveries are at least once: the service retries until
 * it gets a 2xx (for a day or more), so the same event can arrive again and must not be acted on
 * twice. Implement this interface over your database (a unique key on the event id) to survive
 * restarts; the in-memory one below forgets on restart.
 */
export interface SeenEvents {
  has(eventId: string): boolean | Promise<boolean>;
  add(eventId: string): void | Promise<void>;
}

/** Retries span at least 24 h; remember ids a while longer than that. */
const DEFAULT_TTL_MS = 72 * 60 * 60 * 1000;
const DEFAULT_MAX_IDS = 100_000;

/** In memory, bounded in size and age: the oldest ids are forgotten first. */
export class InMemorySeenEvents implements SeenEvents {
  private readonly expiry = new Map<string, number>();
  private readonly ttlMs: number;
  private readonly maxIds: number;

  constructor(options: { ttlMs?: number; maxIds?: number } = {}) {
    this.ttlMs = options.ttlMs ?? DEFAULT_TTL_MS;
    this.maxIds = options.maxIds ?? DEFAULT_MAX_IDS;
  }

  has(eventId: string): boolean {
    const expires = this.expiry.get(eventId);
    if (expires === undefined) return false;
    if (expires > Date.now()) return true;
    this.expiry.delete(eventId);
    return false;
  }

  add(eventId: string): void {
    this.expiry.delete(eventId);
    this.expiry.set(eventId, Date.now() + this.ttlMs);
    // A Map iterates in insertion order, so the first key is the oldest.
    while (this.expiry.size > this.maxIds) this.expiry.delete(this.expiry.keys().next().value!);
  }
}
