import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES, SERVICE_EVENT_TYPES } from '../../lib/core/event-types.ts';
import { serializeDocument } from '../../lib/http/openapi/document.ts';
import { buildEventCatalog } from '../../lib/http/openapi/event-catalog.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { createAgent, createContract, feedOf, publishTemplate, SIMPLE_SCHEMA } from './support.ts';

/** GET /api/v1/event-types: the committed catalog, served without a key, whose schemas hold real events. */
const committed = readFileSync(join(import.meta.dirname, '../../generated/event-types.json'), 'utf8');
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const api = useLocalApi();

describe('the event catalog', () => {
  it('is up to date: generated/event-types.json is what `npm run openapi` writes now', () => {
    expect(committed, 'run `npm run openapi` and commit generated/event-types.json').toBe(
      serializeDocument(buildEventCatalog()),
    );
  });

  it('is served at GET /api/v1/event-types without a key: four configurable contract kinds, the service kinds not configurable', async () => {
    const res = await fetch(`${api.url}/api/v1/event-types`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      data: { type: string; configurable: boolean; description: string; schema: Record<string, unknown> }[];
    };
    expect(body).toEqual(JSON.parse(committed));
    expect(body.data.filter((t) => t.configurable).map((t) => t.type)).toEqual([...EVENT_TYPES]);
    expect(body.data.filter((t) => !t.configurable).map((t) => t.type)).toEqual([...SERVICE_EVENT_TYPES]);
    for (const t of body.data) expect(t.description.length, t.type).toBeGreaterThan(10);
  });

  it('answers a body or a wrong method as the other public routes do, never 5xx', async () => {
    const withBody = await fetch(`${api.url}/api/v1/event-types`, {
      method: 'GET',
      headers: { 'content-type': 'application/json' },
    });
    expect(withBody.status).toBe(200);
    const post = await fetch(`${api.url}/api/v1/event-types`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(post.status).toBeGreaterThanOrEqual(400);
    expect(post.status).toBeLessThan(500);
  });

  describe('schemas', () => {
    let alice: TestUser;
    let agentId: string;
    const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    const schemaOf = (type: string) => buildEventCatalog().data.find((t) => t.type === type)!.schema;

    beforeAll(async () => {
      alice = await createTestUser();
      agentId = await createAgent(alice);
      const templateId = await publishTemplate(alice, SIMPLE_SCHEMA);
      const released = await createContract(alice, agentId, templateId);
      for (const [route, body] of [
        ['fundContract'],
        ['recordVerification', { passed: true, results: { http_status: 200 } }],
        ['releaseContract'],
      ] as const) {
        const res = await invoke(route, { caller: alice, params: { id: released }, ...(body ? { body } : {}) });
        expect(res.status, JSON.stringify(res.body)).toBe(200);
      }
      const refunded = await createContract(alice, agentId, templateId);
      for (const route of ['fundContract', 'refundContract'])
        expect((await invoke(route, { caller: alice, params: { id: refunded } })).status).toBe(200);
    });

    it('each contract kind’s schema accepts the events the service really emits, and refuses them under another type', async () => {
      const events = await feedOf(alice, agentId);
      // The template kinds reach only the agents a workspace chose for them (test/events/template-notices.test.ts).
      expect(new Set(events.map((e) => e.type))).toEqual(new Set(EVENT_TYPES.filter((t) => t.startsWith('contract.'))));
      for (const event of events) {
        const validate = ajv.compile(schemaOf(event.type));
        expect(validate(event), `${event.type}: ${ajv.errorsText(validate.errors)}`).toBe(true);
        const other = EVENT_TYPES.find((t) => t !== event.type)!;
        expect(ajv.compile(schemaOf(other))(event), `${event.type} under ${other}`).toBe(false);
      }
    });

    it('the test event is the envelope with an empty data object; the disable notice carries a reason', () => {
      const envelope = {
        id: 'evt_01J00000000000000000000000',
        created_at: '2026-11-23T00:00:00.000Z',
        agent_id: 'agt_01J00000000000000000000000',
        schema_version: 1,
      };
      const test = ajv.compile(schemaOf('service.webhook.test'));
      expect(test({ ...envelope, type: 'service.webhook.test', data: {} })).toBe(true);
      expect(test({ ...envelope, type: 'service.webhook.test', data: { contract_id: 'x' } })).toBe(false);
      const disabled = ajv.compile(schemaOf('service.webhook.disabled'));
      const notice = {
        reason: 'consecutive_failures',
        message: 'Every delivery attempt failed since …',
        failing_since: '2026-11-18T00:00:00.000Z',
        webhook_url: 'https://hooks.example.com/',
      };
      expect(disabled({ ...envelope, type: 'service.webhook.disabled', data: notice })).toBe(true);
      expect(
        disabled({
          ...envelope,
          type: 'service.webhook.disabled',
          data: { reason: 'every delivery failed for 5 days' },
        }),
      ).toBe(false);
      expect(disabled({ ...envelope, type: 'service.webhook.disabled', data: {} })).toBe(false);
    });
  });
});
