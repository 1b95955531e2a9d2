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
import * as z from '../zod.ts';
import { type SealedSecret, seal, unseal } from './data-key.ts';

export const CUSTOM_HEADERS = {
  maxCount: 10,
  maxNameLength: 64,
  maxValueLength: 1024,
} as const;

/** RFC 9110 hop-by-hop and framing headers, and the ones the service sets itself. */
const FORBIDDEN = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'content-length',
  'content-type',
  'content-encoding',
  'user-agent',
  'traceparent',
  'tracestate',
]);
const FORBIDDEN_PREFIXES = ['webhook-', 'x-service-'];
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const VALUE = /^[\x20-\x7e]*$/;

/** Why a name cannot be a custom header, or undefined when it can. */
export function refusedHeaderName(name: string): string | undefined {
  const lower = name.toLowerCase();
  if (!TOKEN.test(name)) return "A header name is letters, digits and !#$%&'*+-.^_`|~ only.";
  if (FORBIDDEN.has(lower)) return `\`${name}\` is set by HTTP or by the service, not by a custom header.`;
  const prefix = FORBIDDEN_PREFIXES.find((p) => lower.startsWith(p));
  if (prefix) return `Names starting with \`${prefix}\` are the service's own.`;
  return undefined;
}

const header = z.strictObject({
  name: z.string().check(
    z.minLength(1, 'Give the header a name.'),
    z.maxLength(CUSTOM_HEADERS.maxNameLength, `At most ${CUSTOM_HEADERS.maxNameLength} characters.`),
    z.superRefine((name, ctx) => {
      const why = refusedHeaderName(name);
      if (why) ctx.addIssue({ code: 'custom', message: why });
    }),
  ),
  value: z.string().check(
    z.minLength(1, 'Give the header a value.'),
    z.maxLength(CUSTOM_HEADERS.maxValueLength, `At most ${CUSTOM_HEADERS.maxValueLength} characters.`),
    z.regex(VALUE, 'Printable ASCII only (no line breaks or control characters).'),
    z.refine((v) => v.trim() === v, 'No spaces at either end.'),
  ),
  /** Stored sealed and never shown again (the answer shows `value: null`). */
  secret: z.optional(z.boolean()),
});

export const customHeadersSchema = z.array(header).check(
  z.maxLength(CUSTOM_HEADERS.maxCount, `At most ${CUSTOM_HEADERS.maxCount} custom headers.`),
  z.superRefine((headers, ctx) => {
    const seen = new Set<string>();
    headers.forEach((h, i) => {
      const lower = h.name.toLowerCase();
      if (seen.has(lower))
        ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `\`${h.name}\` is listed twice.` });
      seen.add(lower);
    });
  }),
);
export type CustomHeadersInput = z.output<typeof customHeadersSchema>;

/** As stored on the agent item: the value in clear, or sealed. */
export type StoredHeader = { name: string; value: string } | { name: string; sealed: SealedSecret };

export interface HeaderView {
  name: string;
  /** null for a secret one. */
  value: string | null;
  secret: boolean;
}

export function sealHeaders(input: CustomHeadersInput): Promise<StoredHeader[]> {
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
