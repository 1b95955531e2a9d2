import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import catalog from '../../generated/event-types.json' with { type: 'json' };
import { exampleOf } from '../../web/portal/schema-example.ts';

/**
 * The portal's example of each event kind (web/portal/schema-example.ts), made from the catalog's
 * schema: every one is valid against that schema, and reads as the real event does.
 */
describe("the portal's event examples", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats.default(ajv);

  it.each(catalog.data.map((k) => [k.type, k] as const))('%s: valid against its schema', (_type, kind) => {
    const example = exampleOf(kind.schema, kind);
    const validate = ajv.compile(kind.schema);
    expect(validate(example), JSON.stringify(validate.errors)).toBe(true);
  });

  it('gives contract.funded what a funded contract carries: its schema version, FUNDED and an amount', () => {
    const kind = catalog.data.find((k) => k.type === 'contract.funded')!;
    const example = exampleOf(kind.schema, kind) as { schema_version: number; data: Record<string, unknown> };
    expect(example.schema_version).toBe(kind.schema_version);
    expect(example.schema_version).toBeGreaterThan(0);
    expect(example.data).toMatchObject({ status: 'FUNDED', amount_cents: 5000 });
    const verified = catalog.data.find((k) => k.type === 'contract.verification.completed')!;
    expect((exampleOf(verified.schema, verified) as { data: { status: string } }).data.status).toBe('VERIFIED');
  });
});
