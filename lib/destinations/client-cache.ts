/**
 * SDK clients kept per service, region and sender-role session, so consecutive messages to one
 * customer's queue or bus reuse the client's kept-alive connection (one TLS handshake, not one a
 * message). A client lives as long as its session's credentials: a renewed session makes a new one.
 * Evicted clients (the oldest, past `capacity`, or an expired session's) are destroyed after a grace
 * that lets a call still running on them finish.
 */
export interface Destroyable {
  destroy(): void;
}

const DESTROY_GRACE_MS = 30_000;

export class ClientCache<C extends Destroyable> {
  private readonly clients = new Map<string, { client: C; expiresAt: number }>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  /** The kept client of `key` while `now` < its expiry, else a new one from `make`, kept until `expiresAt`. */
  get(key: string, expiresAt: number, make: () => C, now = Date.now()): C {
    const kept = this.clients.get(key);
    this.clients.delete(key);
    if (kept && kept.expiresAt > now) {
      this.clients.set(key, kept);
      return kept.client;
    }
    if (kept) retire(kept.client);
    const client = make();
    this.clients.set(key, { client, expiresAt });
    for (const [oldest, entry] of this.clients) {
      if (this.clients.size <= this.capacity) break;
      this.clients.delete(oldest);
      retire(entry.client);
    }
    return client;
  }

  get size(): number {
    return this.clients.size;
  }
}

function retire(client: Destroyable): void {
  setTimeout(() => client.destroy(), DESTROY_GRACE_MS).unref();
}
