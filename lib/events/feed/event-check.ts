/**
 * Events checked at emit time (docs/webhooks.md, "Events checked at emit time"): the outbox hands
 * every event's `data` here before anything is written, and an event off its kind's catalog schema
 * throws, so the producer fails (in its own test), not a receiver.
 *
 * The schemas are `generated/event-data-schemas.json`: the JSON Schemas of event-data.ts without
 * their words, written by `npm run openapi` (a test fails when it is stale), bundled as data. This
 * reads the few keywords zod writes for them (type, properties, required, additionalProperties,
 * enum, pattern, minimum, maximum, anyOf; `format` always comes with its `pattern`) and refuses a
 * schema with any other, so a new kind of check cannot pass unread.
 */
import schemas from '../../../generated/event-data-schemas.json' with { type: 'json' };
import { InvariantError } from '../../core/errors.ts';
import type { AnyEventType } from '../../core/event-types.ts';

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  propertyNames?: Schema;
  enum?: unknown[];
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  anyOf?: Schema[];
}

const KNOWN = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'propertyNames',
  'enum',
  'pattern',
  'format',
  'minimum',
  'maximum',
  'anyOf',
]);

const typeOf = (value: unknown): string =>
  value === null ? 'null' : Array.isArray(value) ? 'array' : Number.isInteger(value) ? 'integer' : typeof value;

/** The first problem found, as `path: what`, or undefined when `value` fits. */
export function problemOf(schema: Schema, value: unknown, path = 'data'): string | undefined {
  for (const key of Object.keys(schema))
    if (!KNOWN.has(key)) throw new InvariantError(`event-check cannot read the keyword ${key} (${path})`);
  if (schema.anyOf)
    return schema.anyOf.some((s) => problemOf(s, value, path) === undefined)
      ? undefined
      : `${path}: fits none of its forms`;
  if (schema.type !== undefined) {
    const actual = typeOf(value);
    const allowed = typeof schema.type === 'string' ? [schema.type] : schema.type;
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number')))
      return `${path}: expected ${allowed.join(' or ')}, got ${actual}`;
  }
  if (schema.enum && !schema.enum.includes(value)) return `${path}: not one of ${schema.enum.join(', ')}`;
  if (typeof value === 'string' && schema.pattern !== undefined && !new RegExp(schema.pattern).test(value))
    return `${path}: does not match ${schema.pattern}`;
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${path}: below ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${path}: above ${schema.maximum}`;
  }
  if (typeOf(value) !== 'object') return undefined;
  const object = value as Record<string, unknown>;
  for (const name of schema.required ?? []) if (!(name in object)) return `${path}.${name}: missing`;
  for (const [name, field] of Object.entries(object)) {
    const declared = schema.properties?.[name];
    const rule = declared ?? schema.additionalProperties;
    if (rule === false) return `${path}.${name}: not in the schema`;
    if (rule !== undefined && rule !== true) {
      const problem = problemOf(rule, field, `${path}.${name}`);
      if (problem) return problem;
    }
  }
  return undefined;
}

/** Throws when `data` is not what the catalog publishes for `type`: a producer's bug, never a client's. */
export function assertEventData(type: AnyEventType, data: unknown): void {
  const schema = (schemas as Record<string, Schema>)[type];
  if (!schema) throw new InvariantError(`no catalog schema for the event kind ${type}`);
  const problem = problemOf(schema, data);
  if (problem) throw new InvariantError(`a ${type} event off its catalog schema: ${problem}`);
}
