import { describe, expect, it } from 'vitest';
import { atPinnedVersion, pinnableVersions, VERSION_STEPS, type VersionSteps } from '../../lib/core/event-versions.ts';
import { problemOf } from '../../lib/events/feed/event-check.ts';

/** lib/core/event-versions.ts: which versions a pin may name, and an event stepped down to its pin. */
const disabled = (data: Record<string, unknown>) => ({
  id: 'evt_x',
  type: 'service.webhook.disabled' as const,
  schema_version: 2,
  data,
});

/** `service.webhook.disabled` version 1 as the catalog published it before `endpoint_gone`. */
const DISABLED_V1 = {
  type: 'object',
  properties: {
    reason: { type: 'string', enum: ['consecutive_failures'] },
    message: { type: 'string' },
    failing_since: { type: 'string', pattern: '^\\d{4}-\\d\\d-\\d\\dT' },
    webhook_url: { anyOf: [{ type: 'string' }, { type: 'null' }] },
  },
  required: ['reason', 'message', 'failing_since', 'webhook_url'],
  additionalProperties: false,
};

describe('schema versions an agent may pin', () => {
  it('are the current version and each older one the steps reach', () => {
    expect(pinnableVersions('service.webhook.disabled')).toEqual([2, 1]);
    expect(pinnableVersions('contract.funded')).toEqual([1]);
    expect(pinnableVersions('agent.webhook.failing')).toEqual([1]);
  });

  it('service.webhook.disabled 2 → 1: a consecutive-failures notice is version 1 as published; a 410 one cannot be and stays 2', () => {
    const failing = disabled({
      reason: 'consecutive_failures',
      message: 'Every delivery attempt failed since …',
      failing_since: '2026-11-20T00:00:00.000Z',
      webhook_url: 'https://example.com/hook',
    });
    const older = atPinnedVersion(failing, { 'service.webhook.disabled': 1 });
    expect(older).toEqual({ ...failing, schema_version: 1 });
    expect(problemOf(DISABLED_V1, older.data)).toBeUndefined();

    const gone = disabled({ reason: 'endpoint_gone', message: 'The endpoint answered 410 Gone', webhook_url: null });
    expect(problemOf(DISABLED_V1, gone.data)).toBeDefined();
    expect(atPinnedVersion(gone, { 'service.webhook.disabled': 1 })).toBe(gone);
  });

  it('leaves an event alone without a pin for its kind, or pinned at or above its version', () => {
    const event = disabled({ reason: 'endpoint_gone', message: '', webhook_url: null });
    expect(atPinnedVersion(event, undefined)).toBe(event);
    expect(atPinnedVersion(event, { 'contract.funded': 1 })).toBe(event);
    expect(atPinnedVersion(event, { 'service.webhook.disabled': 2 })).toBe(event);
    expect(atPinnedVersion(event, { 'service.webhook.disabled': 5 })).toBe(event);
  });

  it('steps down as far as the pin over several versions (test-only steps), stopping where a step cannot say it', () => {
    const steps: VersionSteps = {
      ...VERSION_STEPS,
      'contract.funded': {
        3: (data) => {
          const { amount, ...rest } = data;
          return { ...rest, amount_cents: amount };
        },
        2: (data) =>
          data['amount_cents'] === 0 ? undefined : { ...data, status: String(data['status']).toLowerCase() },
      },
    };
    expect(pinnableVersions('contract.funded', 3, steps)).toEqual([3, 2, 1]);
    const v3 = { type: 'contract.funded' as const, schema_version: 3, data: { amount: 5, status: 'FUNDED' } };
    expect(atPinnedVersion(v3, { 'contract.funded': 2 }, steps)).toEqual({
      ...v3,
      schema_version: 2,
      data: { amount_cents: 5, status: 'FUNDED' },
    });
    expect(atPinnedVersion(v3, { 'contract.funded': 1 }, steps)).toEqual({
      ...v3,
      schema_version: 1,
      data: { amount_cents: 5, status: 'funded' },
    });
    const free = { ...v3, data: { amount: 0, status: 'FUNDED' } };
    expect(atPinnedVersion(free, { 'contract.funded': 1 }, steps)).toMatchObject({
      schema_version: 2,
      data: { amount_cents: 0 },
    });
    expect(v3.data).toEqual({ amount: 5, status: 'FUNDED' });
  });
});
