import { describe, expect, it } from 'vitest';
import type { $ZodRawIssue } from 'zod/v4/core';
import en from 'zod/v4/locales/en.js';
import * as z from '../../lib/zod.ts';
import { englishMessage } from '../../lib/zod.ts';

/**
 * lib/zod.ts's messages against zod's own English locale (the reference, no longer bundled): the
 * same words for every kind of issue, raised by real schemas and built by hand for the rest.
 */
const reference = en().localeError as (issue: $ZodRawIssue) => string;

const raised: Array<[string, z.ZodMiniType, unknown]> = [
  ['a number for a string', z.string(), 5],
  ['null for a number', z.number(), null],
  ['NaN for a number', z.number(), Number.NaN],
  ['Infinity for a string', z.string(), Number.POSITIVE_INFINITY],
  ['an array for an object', z.strictObject({ a: z.string() }), []],
  ['a Date for a string', z.string(), new Date(0)],
  ['a long string', z.string().check(z.maxLength(3)), 'abcd'],
  ['a short string', z.string().check(z.minLength(3)), 'ab'],
  ['a big number', z.number().check(z.lte(10)), 11],
  ['a small number, exclusive', z.number().check(z.gt(0)), 0],
  ['too many items', z.array(z.string()).check(z.maxLength(1)), ['a', 'b']],
  ['a regex', z.string().check(z.regex(/^a+$/)), 'b'],
  ['a datetime', z.iso.datetime(), 'yesterday'],
  ['a date', z.iso.date(), '2026-13-40'],
  ['a URL', z.url(), 'not a url'],
  ['a UUID', z.uuid(), 'x'],
  ['an enum', z.enum(['a', 'b']), 'c'],
  ['a literal', z.literal('on'), 'off'],
  ['unknown keys', z.strictObject({ a: z.optional(z.string()) }), { b: 1, c: 2 }],
  ['one unknown key', z.strictObject({}), { b: 1 }],
  ['a union', z.union([z.string(), z.number()]), true],
  ['a multiple', z.number().check(z.multipleOf(5)), 7],
  ['a record key', z.record(z.string().check(z.regex(/^a/)), z.string()), { b: 'x' }],
  ['a starts_with', z.string().check(z.startsWith('whsec_')), 'x'],
];

describe("lib/zod.ts's English messages", () => {
  it.each(raised)('are zod’s words for %s', (_, schema, input) => {
    const result = z.safeParse(schema, input);
    expect(result.success).toBe(false);
    for (const issue of result.error!.issues) {
      const raw = { ...issue, input } as unknown as $ZodRawIssue;
      expect(englishMessage(raw)).toBe(reference(raw));
      expect(issue.message).toBe(reference(raw));
    }
  });

  // A format no schema here uses (ipv4, jwt, …) reads `Invalid <format>` instead of zod's longer name.
  it('are zod’s words for issues no schema here raises yet', () => {
    const built = [
      { code: 'too_big', origin: 'string', maximum: 5, exact: true, input: 'x' },
      { code: 'too_small', origin: 'set', minimum: 1, inclusive: true, input: new Set() },
      { code: 'too_big', maximum: 5, inclusive: true, input: 9 },
      { code: 'invalid_format', format: 'ends_with', suffix: '.fifo', input: 'q' },
      { code: 'invalid_format', format: 'includes', includes: '@', input: 'q' },
      { code: 'invalid_format', format: 'email', input: 'q' },
      { code: 'invalid_element', origin: 'map', input: new Map() },
      { code: 'invalid_union', options: ['sqs', 'eventbridge'], input: 'x' },
      { code: 'invalid_union', inclusive: false, input: 'x' },
      { code: 'invalid_value', values: [1n, 'a', true], input: 2 },
      { code: 'custom', input: 1 },
    ] as unknown as $ZodRawIssue[];
    for (const issue of built)
      expect(
        englishMessage(issue),
        JSON.stringify(issue, (_, v) => (typeof v === 'bigint' ? `${v}n` : v)),
      ).toBe(reference(issue));
  });
});
