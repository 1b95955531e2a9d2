import {
  EVENT_DESCRIPTIONS,
  EVENT_SCHEMA_VERSIONS,
  EVENT_TYPES,
  isConfigurable,
  SERVICE_EVENT_TYPES,
} from '../../core/event-types.ts';
import { EVENT_DATA } from '../../events/feed/event-data.ts';
import * as zm from '../../zod.ts';
import { jsonSchemaOf } from './document.ts';
import { contractEvents, serviceEvents } from './schemas.ts';

/**
 * The answer of GET /api/v1/event-types: every kind with the JSON Schema of its event object,
 * made from the same zod schemas as the OpenAPI document's webhooks. `npm run openapi` writes it to
 * generated/event-types.json, which the route serves as bundled data (zod's JSON Schema code stays out
 * of the function); a test fails when that file is stale.
 */
export function buildEventCatalog(): {
  data: {
    type: string;
    description: string;
    configurable: boolean;
    schema_version: number;
    schema: Record<string, unknown>;
  }[];
} {
  const envelopes = { ...contractEvents, ...serviceEvents };
  return {
    data: [...EVENT_TYPES, ...SERVICE_EVENT_TYPES].map((type) => ({
      type,
      description: EVENT_DESCRIPTIONS[type],
      configurable: isConfigurable(type),
      schema_version: EVENT_SCHEMA_VERSIONS[type],
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...jsonSchemaOf(envelopes[type], 'output') },
    })),
  };
}

/** Words out, checks in: what the outbox's check reads (lib/events/feed/event-check.ts). */
const withoutWords = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutWords)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(
          Object.entries(value)
            .filter(([key]) => key !== 'description' && key !== '$schema')
            .map(([key, v]) => [key, withoutWords(v)]),
        )
      : value;

/** generated/event-data-schemas.json: each kind's `data` as JSON Schema, the words left out (they are in the catalog). */
export function buildEventDataSchemas(): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(EVENT_DATA).map(([type, schema]) => [type, withoutWords(zm.toJSONSchema(schema, { io: 'output' }))]),
  );
}
