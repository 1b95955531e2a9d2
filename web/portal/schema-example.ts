/**
 * An example event of a kind, made from its JSON Schema in the event catalog (GET /event-types) and
 * the catalog's own facts about it, so it reads like the real thing: `schema_version` is the
 * kind's current version, a status enum takes the value the kind's name says (`contract.funded` →
 * `FUNDED`), amounts in cents are 5000, ids follow their pattern's prefix, times are now; anything
 * else takes the schema's `examples`, `const`, first enum value or a placeholder of its type.
 * test/portal/schema-example.test.ts checks every kind's example against its schema.
 */
type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  examples?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** What the catalog says of the kind besides its schema. */
export interface KindFacts {
  type: string;
  schema_version: number;
}

/** The enum value the kind's name points at: `contract.funded` → `FUNDED`, `contract.verification.completed` → `VERIFIED` (the shortest sharing a word's first five letters). */
function named(values: unknown[], kind: string): unknown {
  const words = kind.toUpperCase().split('.');
  const strings = values.filter((v): v is string => typeof v === 'string');
  const exact = strings.find((v) => words.includes(v));
  if (exact) return exact;
  const stems = words.filter((w) => w.length > 5).map((w) => w.slice(0, 5));
  const near = strings.filter((v) => stems.some((s) => v.startsWith(s))).sort((a, b) => a.length - b.length);
  return near[0] ?? values[0];
}

function sample(schema: Schema, name: string, facts: KindFacts, now: Date): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.examples?.length) return schema.examples[0];
  if (schema.enum?.length) return named(schema.enum, facts.type);
  const choice = schema.anyOf?.find((s) => s.type !== 'null') ?? schema.oneOf?.[0];
  if (choice) return sample(choice, name, facts, now);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, sample(v, k, facts, now)]));
    case 'array':
      return schema.items ? [sample(schema.items, name, facts, now)] : [];
    case 'integer':
    case 'number':
      if (name === 'schema_version') return facts.schema_version;
      if (name.endsWith('_cents')) return 5000;
      return Math.max(schema.minimum ?? 1, 1);
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format === 'date-time') return now.toISOString();
      if (schema.format === 'uuid') return '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f';
      if (schema.format === 'uri' || name.endsWith('url')) return 'https://hooks.example.com/marketplace';
      const prefix = /^\^([a-z]+_)/.exec(schema.pattern ?? '')?.[1];
      return prefix ? `${prefix}01KAKQ8A1B2C3D4E5F6G7H8J9K` : name.replaceAll('_', ' ');
    }
    default:
      return null;
  }
}

/** `schema`: a kind's JSON Schema as the catalog gives it. */
export function exampleOf(schema: object, facts: KindFacts, now = new Date()): unknown {
  return sample(schema as Schema, '', facts, now);
}
