/**
 * The request shape of an endpoint's custom headers (custom-headers.ts; docs/webhooks.md, "Custom
 * headers"): at most CUSTOM_HEADERS.maxCount, names none of what HTTP or the service owns, values
 * printable ASCII and bounded. Apart from custom-headers.ts so the functions that only send them
 * bundle no zod.
 */
import * as z from '../zod.ts';
import { CUSTOM_HEADERS } from './custom-headers.ts';

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
