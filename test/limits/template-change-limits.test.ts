import { describe, expect, it } from 'vitest';
import { newUuid } from '../../lib/core/ids.ts';
import { MAX_CLOCK_SKEW_MS, VERSION_CHANGE_LIMITS, VISIBILITY_CHANGE_LIMITS } from '../../lib/core/settings.ts';
import { takeVersionChangeSlot } from '../../lib/limits/template-change-limits.ts';
import { SIMPLE_SCHEMA } from '../events/support.ts';
import { expectError, publish } from '../marketplace/helpers.ts';
import { createTestUser, type InvokeResult, invoke, type TestUser } from '../support/lambda.ts';

/**
 * The changes of one template that fan out beyond its author are limited per template, in
 * DynamoDB Local by conditional writes: version changes (each may tell every installer) and
 * visibility changes (each moves the template's whole search index).
 */
const change = (caller: TestUser, id: string, version: string, body: unknown) =>
  invoke('changeVersion', { caller, params: { id, version }, body });
const update = (caller: TestUser, id: string, body: unknown) =>
  invoke('updateTemplate', { caller, params: { id }, body });

function expectLimited(res: InvokeResult, windowMs: number) {
  expectError(res, 429, 'rate_limited');
  const retryAfter = Number(res.headers['retry-after']);
  expect(retryAfter).toBeGreaterThan(0);
  expect(retryAfter).toBeLessThanOrEqual(windowMs / 1000);
}

describe('version changes per template', () => {
  it(`${VERSION_CHANGE_LIMITS.perWindow} per window, then 429 with Retry-After; a 404 or 403 takes none; other templates go on`, async () => {
    const author = await createTestUser();
    const t = await publish(author, { version: '1.2.3', schema: SIMPLE_SCHEMA });
    const other = await publish(author, { version: '1.2.3', schema: SIMPLE_SCHEMA });
    // Refused before the limiter: an unknown version (404), someone else (403).
    expect((await change(author, t.id, '9.9.9', { deprecated: 'x' })).status).toBe(404);
    expect((await change(await createTestUser(), t.id, '1.2.3', { deprecated: 'x' })).status).toBe(403);
    const statuses = [];
    for (let i = 0; i < VERSION_CHANGE_LIMITS.perWindow; i++) {
      statuses.push((await change(author, t.id, '1.2.3', { deprecated: `message ${i}`, yanked: i % 2 === 0 })).status);
    }
    expect(statuses).toEqual(Array(VERSION_CHANGE_LIMITS.perWindow).fill(200));
    const refused = await change(author, t.id, '1.2.3', { deprecated: 'one more' });
    expectLimited(refused, VERSION_CHANGE_LIMITS.windowMs);
    expect(refused.body.error.message).toMatch(/versions may be changed 10 times per 60 minutes/);
    // Nothing of the refused change was written.
    const details = (await invoke('getTemplate', { caller: author, params: { id: t.id } })).body;
    expect(details.versions[0].deprecated.message).toBe(`message ${VERSION_CHANGE_LIMITS.perWindow - 1}`);
    expect((await change(author, other.id, '1.2.3', { deprecated: 'fine' })).status).toBe(200);
  });

  it('exactly perWindow of 3 × perWindow racing instances, clocks up to the skew bound apart, get a place', async () => {
    const templateId = newUuid();
    const start = Date.now();
    const offsets = [-MAX_CLOCK_SKEW_MS / 2, 0, MAX_CLOCK_SKEW_MS / 2];
    const outcomes = await Promise.allSettled(
      Array.from({ length: 3 * VERSION_CHANGE_LIMITS.perWindow }, (_, i) =>
        takeVersionChangeSlot(templateId, () => start + offsets[i % 3]!),
      ),
    );
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(VERSION_CHANGE_LIMITS.perWindow);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toMatchObject({ code: 'rate_limited' });
    // The window ends for everyone (a clock at the far end of the bound included) and the next one opens.
    const later = start + VERSION_CHANGE_LIMITS.windowMs + MAX_CLOCK_SKEW_MS;
    await expect(takeVersionChangeSlot(templateId, () => later)).resolves.toBeUndefined();
  });

  it('is not locked out by a clock an hour ahead', async () => {
    const templateId = newUuid();
    const now = Date.now();
    for (let i = 0; i < VERSION_CHANGE_LIMITS.perWindow; i++)
      await takeVersionChangeSlot(templateId, () => now + 2 * 3_600_000);
    await expect(takeVersionChangeSlot(templateId, () => now)).resolves.toBeUndefined();
  });
});

describe('visibility changes per template', () => {
  it(`${VISIBILITY_CHANGE_LIMITS.perWindow} per window, then 429; other fields, and a visibility it already has, take none`, async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const visibilities = ['private', 'public'] as const;
    const statuses = [];
    for (let i = 0; i < VISIBILITY_CHANGE_LIMITS.perWindow; i++) {
      statuses.push((await update(author, t.id, { visibility: visibilities[i % 2] })).status);
      // Neither takes a place: the same visibility again, and a rename.
      expect((await update(author, t.id, { visibility: visibilities[i % 2], name: `Name ${i}` })).status).toBe(200);
    }
    expect(statuses).toEqual(Array(VISIBILITY_CHANGE_LIMITS.perWindow).fill(200));
    const refused = await update(author, t.id, { visibility: 'unlisted' });
    expectLimited(refused, VISIBILITY_CHANGE_LIMITS.windowMs);
    expect((await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.visibility).toBe('public');
    expect((await update(author, t.id, { description: 'Still editable.' })).status).toBe(200);
  });
});
