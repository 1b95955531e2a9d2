import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_SCHEMA_VERSIONS, EVENT_TYPES, SERVICE_EVENT_TYPES } from '../../lib/core/event-types.ts';
import { assertEventData, problemOf } from '../../lib/events/feed/event-check.ts';
import { EVENT_DATA } from '../../lib/events/feed/event-data.ts';
import { commitWithEvents } from '../../lib/events/feed/outbox.ts';
import { buildEventCatalog, buildEventDataSchemas } from '../../lib/http/openapi/event-catalog.ts';

/**
 * Events checked at emit time (docs/webhooks.md, "Events checked at emit time"): the outbox refuses an
 * event whose `data` is off its kind's catalog schema before it touches the store (this file runs in
 * the unit tier, where any store call fails on the guard's trap instead), the checked schemas are
 * the catalog's, and the checker agrees with zod on what fits.
 */
const CONTRACT = { contract_id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K', status: 'FUNDED', amount_cents: 500 };
const TEMPLATE = {
  template_id: '6f1c2d3e-4a5b-4c6d-8e9f-0a1b2c3d4e5f',
  template_name: 'Uptime',
  version: '1.0.0',
  message: '',
  current_version: null,
};
const VALID: Record<string, Record<string, unknown>> = {
  'contract.funded': CONTRACT,
  'contract.released': { ...CONTRACT, status: 'RELEASED' },
  'contract.refunded': { ...CONTRACT, status: 'REFUNDED' },
  'contract.verification.completed': { ...CONTRACT, status: 'VERIFIED', passed: true, results: { ping: 'ok' } },
  'template.version.deprecated': TEMPLATE,
  'template.version.yanked': { ...TEMPLATE, current_version: '0.9.0' },
  'service.webhook.test': {},
  'service.webhook.disabled': { reason: 'endpoint_gone', message: 'gone', webhook_url: 'https://hooks.example.com/' },
};
const OFF: Array<[string, unknown]> = [
  ['contract.funded', { ...CONTRACT, status: 'PAID' }],
  ['contract.funded', { ...CONTRACT, contract_id: 'ctr_short' }],
  ['contract.funded', { ...CONTRACT, amount_cents: 1.5 }],
  ['contract.funded', { ...CONTRACT, amount_cents: '500' }],
  ['contract.funded', { contract_id: CONTRACT.contract_id, status: 'FUNDED' }],
  ['contract.funded', { ...CONTRACT, extra: true }],
  ['contract.verification.completed', CONTRACT],
  ['template.version.yanked', { ...TEMPLATE, template_id: 'not-a-uuid' }],
  ['template.version.yanked', { ...TEMPLATE, current_version: 3 }],
  ['service.webhook.test', { anything: 1 }],
  ['service.webhook.disabled', { reason: 'tired', message: 'x', webhook_url: null }],
  [
    'service.webhook.disabled',
    { reason: 'consecutive_failures', message: 'x', webhook_url: null, failing_since: 'yesterday' },
  ],
  ['contract.funded', null],
  ['contract.funded', []],
];

describe('events checked at emit time', () => {
  it('checks against generated/event-data-schemas.json, which is what `npm run openapi` writes now', () => {
    const committed = JSON.parse(
      readFileSync(new URL('../../generated/event-data-schemas.json', import.meta.url), 'utf8'),
    );
    expect(committed).toEqual(buildEventDataSchemas());
    expect(Object.keys(committed).sort()).toEqual([...EVENT_TYPES, ...SERVICE_EVENT_TYPES].sort());
  });

  it('accepts an example of every kind and refuses off-schema data, agreeing with zod each time', () => {
    for (const [type, data] of Object.entries(VALID)) {
      expect(() => assertEventData(type as never, data), type).not.toThrow();
      expect(EVENT_DATA[type as keyof typeof EVENT_DATA].safeParse(data).success, type).toBe(true);
    }
    for (const [type, data] of OFF) {
      expect(() => assertEventData(type as never, data), `${type} ${JSON.stringify(data)}`).toThrow(
        /off its catalog schema/,
      );
      expect(EVENT_DATA[type as keyof typeof EVENT_DATA].safeParse(data).success, JSON.stringify(data)).toBe(false);
    }
  });

  it('fails the producer before anything is written: the outbox throws on the check, not on the store', async () => {
    await expect(
      commitWithEvents(
        () => {
          throw new Error('the state change must not even be built');
        },
        {
          agentIds: ['agt_01KAKQ8A1B2C3D4E5F6G7H8J9K'],
          type: 'contract.funded',
          data: { ...CONTRACT, status: 'PAID' },
        },
      ),
    ).rejects.toThrow(/contract.funded event off its catalog schema: data.status: not one of/);
  });

  it('refuses a schema keyword it cannot read, so no check passes unread', () => {
    expect(() => problemOf({ type: 'string', minLength: 3 } as never, 'ab')).toThrow(
      /cannot read the keyword minLength/,
    );
  });

  it('each kind has a schema version, shown in the catalog', () => {
    const catalog = buildEventCatalog().data;
    for (const entry of catalog) expect(entry.schema_version).toBe(EVENT_SCHEMA_VERSIONS[entry.type as never]);
    expect(catalog.find((e) => e.type === 'service.webhook.disabled')?.schema_version).toBe(2);
  });
});
