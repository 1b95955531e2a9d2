/**
 * The publish gate's checks (docs/marketplace.md, "Publish gate"), pure: what a template or version
 * would list, looked at before it is listed. A finding names its kind, the path of the value (as the
 * API's validation details do: `schema.checks.0.config.headers.1.value`) and why, never the value
 * itself (a secret found must not be copied into answers, logs or the audit trail).
 *
 * - `secret`: credential formats (AWS access key ids, GitHub, Slack and Stripe tokens, Slack
 *   webhook URLs, private key blocks, passwords in URLs, `Bearer`/`Basic` values) anywhere, and
 *   high-entropy values under secret-looking names (`token`, `api_key`, `password`, …).
 * - `impersonation`: a slug (or a name, against publishers' names only) whose skeleton (Unicode confusables folded, separators
 *   dropped, digits read as the letters they imitate) equals or is one edit from a verified
 *   publisher's name or one of their slugs, unless it is the publisher's own.
 * - `reference`: a check config that points at what no check should reach: a URL to a loopback,
 *   private, link-local or metadata address, or a `$ref` outside the config.
 */
import { parseIp } from '../../net/ip.ts';
import { isForbiddenAddress } from '../../net/url-policy.ts';

export type FindingKind = 'secret' | 'impersonation' | 'reference';
export interface Finding {
  kind: FindingKind;
  path: string;
  reason: string;
}

/** What a publish or a version puts in front of readers. */
export interface GateInput {
  name?: string;
  slug?: string;
  description?: string | undefined;
  changelog?: string | undefined;
  schema: {
    variables: { name: string; description?: string; default?: unknown; enum?: string[] }[];
    checks: { id: string; description?: string; config: Record<string, unknown> }[];
  };
}

/** A verified publisher's protected name (their own name, or a slug of theirs) as stored: `skeleton` precomputed. */
export interface ProtectedName {
  author_id: string;
  skeleton: string;
  of: 'publisher' | 'slug';
}

const CREDENTIAL_FORMATS: [RegExp, string][] = [
  [/\b(?:AKIA|ASIA|AGPA|AIDA|AROA|ANPA)[0-9A-Z]{16}\b/, 'an AWS access key id'],
  [/\bgh[pousr]_[A-Za-z0-9]{36,255}\b/, 'a GitHub token'],
  [/\bgithub_pat_[A-Za-z0-9_]{22,255}\b/, 'a GitHub fine-grained token'],
  [/\bxox[abposr]-[A-Za-z0-9-]{10,}/, 'a Slack token'],
  [/hooks\.slack\.com\/services\/T[A-Za-z0-9]+\/B[A-Za-z0-9]+\/[A-Za-z0-9]{16,}/, 'a Slack webhook URL'],
  [/\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}\b/, 'a Stripe secret key'],
  [/-----BEGIN (?:[A-Z]+ )?PRIVATE KEY(?: BLOCK)?-----/, 'a private key'],
  [/\b(?:Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{16,}/, 'an Authorization value'],
  [/\bhttps?:\/\/[^\s/:@{}]+:[^\s/@{}]+@/, 'a password in a URL'],
];

const SECRET_NAME =
  /(secret|token|passw(or)?d|passwd|api[_-]?key|apikey|auth|credential|private[_-]?key|access[_-]?key|signing[_-]?key|client[_-]?secret)/i;
const PLACEHOLDER_ONLY = /^\s*\{\{[^{}]*\}\}\s*$/;

/** Shannon entropy in bits per character. */
function entropy(text: string): number {
  const counts = new Map<string, number>();
  for (const ch of text) counts.set(ch, (counts.get(ch) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / text.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A value that looks like a generated credential: long, no spaces, mixed classes, random-looking. */
function looksGenerated(value: string): boolean {
  if (value.length < 16 || /\s/.test(value) || PLACEHOLDER_ONLY.test(value) || value.includes('{{')) return false;
  const classes = [/[a-z]/, /[A-Z]/, /[0-9]/, /[^A-Za-z0-9]/].filter((r) => r.test(value)).length;
  return classes >= 2 && entropy(value) >= 3.5;
}

function secretIn(value: string, keyName: string | undefined): string | undefined {
  for (const [pattern, what] of CREDENTIAL_FORMATS) if (pattern.test(value)) return `Looks like ${what}.`;
  if (keyName !== undefined && SECRET_NAME.test(keyName) && looksGenerated(value)) {
    return `A random-looking value under "${keyName}": use a {{variable}} for credentials.`;
  }
  return undefined;
}

/** Every string of `value` with its path and the name of the key that holds it. */
function* strings(
  value: unknown,
  path: string,
  key?: string,
): Generator<{ path: string; key: string | undefined; text: string }> {
  if (typeof value === 'string') yield { path, key, text: value };
  else if (Array.isArray(value)) for (const [i, v] of value.entries()) yield* strings(v, `${path}.${i}`, key);
  else if (value !== null && typeof value === 'object') {
    // `{"name": "Authorization", "value": "…"}`, a variable's `default`: the sibling `name` says what the value is.
    const named = (value as Record<string, unknown>)['name'];
    for (const [k, v] of Object.entries(value)) {
      const keyName = (k === 'value' || k === 'default') && typeof named === 'string' ? named : k;
      yield* strings(v, `${path}.${k}`, keyName);
    }
  }
}

function referenceIn(text: string, key: string | undefined): string | undefined {
  if (key === '$ref' && !text.startsWith('#')) return 'A $ref outside the config: a check must carry what it needs.';
  if (text.includes('{{')) return undefined;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (!['http:', 'https:'].includes(url.protocol)) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const literal = parseIp(host) !== null;
  if (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    host.endsWith('.internal') ||
    (literal && isForbiddenAddress(host))
  ) {
    return `Points at ${host}, an address no check should reach (loopback, private, link-local or metadata).`;
  }
  return undefined;
}

/** Confusables folded, as UTS #39's skeleton does for the letters impersonators use, plus digits and separators. */
const CONFUSABLES: Record<string, string> = {
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  і: 'i',
  ї: 'i',
  ј: 'j',
  ѕ: 's',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ɡ: 'g',
  ı: 'i',
  ℓ: 'l',
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  '0': 'o',
  '1': 'l',
  '3': 'e',
  '5': 's',
  '7': 't',
  '@': 'a',
  $: 's',
  '|': 'l',
  '!': 'i',
  i: 'l',
};

export function skeleton(text: string): string {
  const folded = [...text.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase()]
    .map((ch) => CONFUSABLES[ch] ?? ch)
    .join('')
    .replace(/[^a-z0-9]/g, '');
  return folded.replace(/rn/g, 'm').replace(/vv/g, 'w').replace(/cl/g, 'd');
}

/** Levenshtein distance, stopping early past `max`. */
export function editDistance(a: string, b: string, max: number): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    let best = i;
    for (let j = 1; j <= b.length; j++) {
      cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      best = Math.min(best, cur[j]!);
    }
    if (best > max) return max + 1;
    prev = cur;
  }
  return prev[b.length]!;
}

/** Short names collide by chance: one edit is allowed from 6 characters of skeleton, two from 12. */
const editsAllowed = (length: number) => (length >= 12 ? 2 : length >= 6 ? 1 : 0);

/**
 * A slug is held against verified publishers' names and slugs; a template's name (free words, where
 * two honest templates often say the same thing: "HTTP uptime check") only against their names.
 */
function impersonates(
  text: string,
  field: 'name' | 'slug',
  authorId: string,
  protectedNames: readonly ProtectedName[],
): boolean {
  const s = skeleton(text);
  if (s.length < 3) return false;
  return protectedNames.some(
    (p) =>
      p.author_id !== authorId &&
      (field === 'slug' || p.of === 'publisher') &&
      editDistance(s, p.skeleton, editsAllowed(p.skeleton.length)) <= editsAllowed(p.skeleton.length),
  );
}

export function gateFindings(input: GateInput, authorId: string, protectedNames: readonly ProtectedName[]): Finding[] {
  const findings: Finding[] = [];
  const texts = [
    ...(input.name !== undefined ? [{ path: 'name', key: undefined, text: input.name }] : []),
    ...(input.description !== undefined ? [{ path: 'description', key: undefined, text: input.description }] : []),
    ...(input.changelog !== undefined ? [{ path: 'changelog', key: undefined, text: input.changelog }] : []),
    ...strings(input.schema.variables, 'schema.variables'),
    ...input.schema.checks.flatMap((c, i) => [
      ...(c.description !== undefined
        ? [{ path: `schema.checks.${i}.description`, key: undefined, text: c.description }]
        : []),
      ...strings(c.config, `schema.checks.${i}.config`),
    ]),
  ];
  for (const { path, key, text } of texts) {
    const secret = secretIn(text, key);
    if (secret) findings.push({ kind: 'secret', path, reason: secret });
    const reference = path.includes('.config') ? referenceIn(text, key) : undefined;
    if (reference) findings.push({ kind: 'reference', path, reason: reference });
  }
  for (const field of ['name', 'slug'] as const) {
    const text = input[field];
    if (text !== undefined && impersonates(text, field, authorId, protectedNames)) {
      findings.push({
        kind: 'impersonation',
        path: field,
        reason: "Confusable with a verified publisher's name or slug.",
      });
    }
  }
  return findings;
}
