import { EVENT_DESCRIPTIONS, EVENT_TYPES, isConfigurable, SERVICE_EVENT_TYPES } from '../../core/event-types.ts';
import { jsonSchemaOf } from './document.ts';
import { contractEvents, serviceEvents } from './schemas.ts';

/**
 * The answer of GET /api/v1/event-types: every kind with the JSON Schema of its event object,
 * made from the same zod schemas as the OpenAPI document's webhooks. `npm run openapi` writes it to
 * generated/event-types.json, which the route serves as bundled data (zod's JSON Schema code stays out
 * of the function); a test fails when that file is stale.
 */
export function buildEventCatalog(): {
  data: { type: string; description: string; configurable: boolean; schema: Record<string, unknown> }[];
} {
  const envelopes = { ...contractEvents, ...serviceEvents };
  return {
    data: [...EVENT_TYPES, ...SERVICE_EVENT_TYPES].map((type) => ({
      type,
      description: EVENT_DESCRIPTIONS[type],
      configurable: isConfigurable(type),
      schema: { $schema: 'https://json-schema.org/draft/2020-12/schema', ...jsonSchemaOf(envelopes[type], 'output') },
    })),
  };
}
