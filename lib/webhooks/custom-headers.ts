/**
 * Static headers an endpoint's owner adds to every request the service sends it (docs/webhooks.md,
 * "Custom headers"): each delivery attempt, the handshake and its periodic re-run, and the test
 * event. At most CUSTOM_HEADERS.maxCount; names are HTTP tokens that are none of what the service or
 * HTTP itself owns (hop-by-hop headers, `Host`, `Content-Length`, `Content-Type`, `User-Agent`, the
 * trace headers, `webhook-*`, `x-service-*`); values printable ASCII, bounded. A value marked
 * `secret` is stored sealed like the agents' ed25519 keys (data-key.ts) and never shown again, and
 * no header value is ever logged.
 */
import SmallLru from '../aws/small-lru.ts';
import { type SealedSecret, seal, unseal } from './data-key.ts';

export const CUSTOM_HEADERS = {
  maxCount: 10,
  maxNameLength: 64,
  maxValueLength: 1024,
} as const;

/** As stored on the agent item: the value in clear, or sealed. */
export type StoredHeader = { name: string; value: string } | { name: string; sealed: SealedSecret };

export interface HeaderView {
  name: string;
  /** null for a secret one. */
  value: string | null;
  secret: boolean;
}

export function sealHeaders(
  input: readonly { name: string; value: string; secret?: boolean | undefined }[],
): Promise<StoredHeader[]> {
  return Promise.all(
    input.map(async (h) =>
      h.secret ? { name: h.name, sealed: await seal(Buffer.from(h.value, 'utf8')) } : { name: h.name, value: h.value },
    ),
  );
}

export const headerViews = (stored: readonly StoredHeader[] | undefined): HeaderView[] =>
  (stored ?? []).map((h) =>
    'sealed' in h ? { name: h.name, value: null, secret: true } : { name: h.name, value: h.value, secret: false },
  );

/** Opened once per process and sealed value (its ciphertext is unique). */
const opened = new SmallLru<string, string>(256);

/** The headers to send, secret ones unsealed. */
export async function customHeaderValues(stored: readonly StoredHeader[] | undefined): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const h of stored ?? []) {
    if (!('sealed' in h)) {
      out[h.name] = h.value;
      continue;
    }
    let value = opened.get(h.sealed.ct);
    if (value === undefined) {
      value = (await unseal(h.sealed)).toString('utf8');
      opened.set(h.sealed.ct, value);
    }
    out[h.name] = value;
  }
  return out;
}
