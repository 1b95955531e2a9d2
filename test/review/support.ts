import { expect } from 'vitest';
import { templateBody } from '../marketplace/helpers.ts';

/** A 400 validation_error naming exactly one path, with a message that says why. */
export function expectRefusedAt(res: { status: number; body: any }, path: string, why: RegExp): void {
  expect(res.status, JSON.stringify(res.body)).toBe(400);
  expect(res.body.error.code).toBe('validation_error');
  expect(res.body.error.details).toEqual([{ path, message: expect.stringMatching(why) }]);
}

/**
 * A publish request whose one check has `config.x` = the raw JSON text given, sent as written
 * (JSON.stringify could not produce what these tests need: duplicate-looking keys, 1e300, …).
 */
export const publishWithRawConfig = (raw: string) => ({
  body: JSON.stringify(
    templateBody({ schema: { variables: [], checks: [{ id: 'c', type: 't', config: { x: '__X__' } }] } }),
  ).replace('"__X__"', raw),
  headers: { 'Content-Type': 'application/json' },
});
