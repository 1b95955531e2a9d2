import { beforeAll, describe, expect, it } from 'vitest';
import { fillPlaceholders } from '../../lib/contracts/variables.ts';
import { templateBody } from '../marketplace/helpers.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';

/**
 * Variable names are looked up in plain objects. `constructor` and `__proto__` match the name
 * pattern but are properties every object inherits: a template declaring them could be published,
 * then `__proto__` could never be given (JSON's own key is dropped on assignment), an unset
 * `constructor` filled checks with "function Object() { [native code] }", and a set one made the
 * contract a 500 (DynamoDB's marshaller took `{constructor: "…"}` for a class instance).
 */
let alice: TestUser;
beforeAll(async () => {
  alice = await createTestUser();
});

describe('variable names that every object inherits', () => {
  it.each(['constructor', '__proto__'])('publishing a variable named %s is a 400 on its name', async (name) => {
    const body = templateBody({ schema: { variables: [{ name, type: 'string', required: false }], checks: [] } });
    const res = await invoke('publishTemplate', { caller: alice, body });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details).toContainEqual({ path: 'schema.variables.0.name', message: expect.any(String) });
  });

  it('placeholders only ever take the given values, never inherited properties', () => {
    expect(fillPlaceholders('{{constructor}}', {})).toBeNull();
    expect(fillPlaceholders('x {{constructor}} {{__proto__}}', {})).toBe('x  ');
    expect(fillPlaceholders({ a: '{{tostring}}' }, { tostring: 'ok' })).toEqual({ a: 'ok' });
  });
});
