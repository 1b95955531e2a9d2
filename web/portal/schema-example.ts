/**
 * An example event from a kind's JSON Schema in the event catalog (GET /event-types): the catalog
 * carries schemas, and a reader wants to see a payload. Ids follow their pattern's prefix, times
 * are now, enums take their first value.
 */
type Schema = {
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

export function exampleOf(schema: Schema, now = new Date()): unknown {
  if (schema.const !== undefined) return schema.const;
  if (schema.enum?.length) return schema.enum[0];
  const choice = schema.anyOf?.find((s) => s.type !== 'null') ?? schema.oneOf?.[0];
  if (choice) return exampleOf(choice, now);
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, v]) => [k, exampleOf(v, now)]));
    case 'array':
      return schema.items ? [exampleOf(schema.items, now)] : [];
    case 'integer':
    case 'number':
      return 0;
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format === 'date-time') return now.toISOString();
      const prefix = /^\^([a-z]+_)/.exec(schema.pattern ?? '')?.[1];
      return prefix ? `${prefix}01KAKQ8A1B2C3D4E5F6G7H8J9K` : 'string';
    }
    default:
      return null;
  }
}
