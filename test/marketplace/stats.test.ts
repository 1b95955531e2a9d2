import { beforeAll, describe, expect, it } from 'vitest';
import { installTemplate } from '../../lib/marketplace/installs/install.ts';
import { STATS_SHARDS } from '../../lib/marketplace/stats/count.ts';
import { templateStats } from '../../lib/marketplace/stats/stats.ts';
import { type CapacityMeter, meterCapacity } from '../../lib/store/capacity-meter.ts';
import { db } from '../../lib/store/client.ts';
import { createAgent, createContract, SIMPLE_SCHEMA } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { expectError, publish } from './helpers.ts';

const stats = (caller: TestUser, id: string, query: Record<string, string>) =>
  invoke('templateStats', { caller, params: { id }, query });

const at = (date: string) => Date.parse(`${date}T12:00:00Z`);

let meter: CapacityMeter;
beforeAll(() => {
  meter = meterCapacity(db());
});

describe('GET /templates/:id/stats', () => {
  it('counts installs per UTC day and version, contracts and reviews on the day they happen', async () => {
    const author = await createTestUser();
    const t = await publish(author, { version: '1.0.0', schema: SIMPLE_SCHEMA });
    const early = await Promise.all(Array.from({ length: 3 }, () => createTestUser()));
    for (const u of early.slice(0, 2)) await installTemplate(t.id, u, at('2025-12-31'));
    await installTemplate(t.id, early[2]!, at('2026-01-02'));
    await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version: '1.1.0', schema: SIMPLE_SCHEMA },
    });
    const late = await createTestUser();
    await installTemplate(t.id, late, at('2026-01-02'));

    const res = await stats(author, t.id, { from: '2025-12-31', to: '2026-01-02' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.days.map((d: any) => [d.date, d.installs])).toEqual([
      ['2025-12-31', 2],
      ['2026-01-01', 0],
      ['2026-01-02', 2],
    ]);
    expect(res.body.days[2].versions.map((v: any) => [v.version, v.installs])).toEqual([
      ['1.1.0', 1],
      ['1.0.0', 1],
    ]);
    expect(res.body.totals.installs).toBe(4);

    // Today's contracts and reviews (they count on the server's day).
    const buyer = await createTestUser();
    const agent = await createAgent(buyer);
    await createContract(buyer, agent, t.id);
    await invoke('createReview', { caller: buyer, params: { id: t.id }, body: { rating: 4, title: 'Good' } });
    await invoke('createReview', { caller: late, params: { id: t.id }, body: { rating: 1, title: 'Bad' } });
    const today = new Date().toISOString().slice(0, 10);
    const now = await stats(author, t.id, { from: today, to: today });
    expect(now.body.days).toEqual([
      {
        date: today,
        installs: 0,
        contracts_created: 1,
        reviews: 2,
        rating_avg: 2.5,
        versions: [{ version: '1.1.0', installs: 0, contracts_created: 1, reviews: 2, rating_avg: 2.5 }],
      },
    ]);
  });

  it('stays exact under 30 concurrent installs on one day', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const users = await Promise.all(Array.from({ length: 30 }, () => createTestUser()));
    await Promise.all(users.map((u) => installTemplate(t.id, u, at('2026-03-10'))));
    const res = await stats(author, t.id, { from: '2026-03-10', to: '2026-03-10' });
    expect(res.body.days[0].installs).toBe(30);
    expect((await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.stats.installs).toBe(30);
  }, 90_000); // 30 transactions on one template retry against each other: slow on a loaded DynamoDB Local

  it('reads the same items for a window of 1 day as for 365 days', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const users = await Promise.all(Array.from({ length: 6 }, () => createTestUser()));
    // Activity spread over the year, on two versions.
    for (const [i, date] of ['2026-01-05', '2026-03-01', '2026-06-15'].entries())
      await installTemplate(t.id, users[i]!, at(date));
    await invoke('publishVersion', {
      caller: author,
      params: { id: t.id },
      body: { version: '2.0.0', schema: SIMPLE_SCHEMA },
    });
    for (const [i, date] of ['2026-08-01', '2026-10-10', '2026-12-30'].entries())
      await installTemplate(t.id, users[i + 3]!, at(date));

    const cost = async (from: string, to: string) => {
      meter.reset();
      const series = await templateStats(t.id, { from, to, granularity: 'day' }, author);
      return { items: meter.itemsRead, units: meter.read, series };
    };
    const oneDay = await cost('2026-06-15', '2026-06-15');
    const year = await cost('2026-01-01', '2026-12-31');
    expect(oneDay.series.days).toHaveLength(1);
    expect(year.series.days).toHaveLength(365);
    expect(year.series.totals.installs).toBe(6);
    // The template item (author check) and the stats shards of each version: the same for both windows.
    expect(oneDay.items).toBeGreaterThanOrEqual(3);
    expect(oneDay.items).toBeLessThanOrEqual(1 + 2 * STATS_SHARDS);
    expect(year.items).toBe(oneDay.items);
    expect(year.units).toBe(oneDay.units);
  });

  it('author only; a strict query: dates, order, at most 366 days, granularity day', async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const t = await publish(author);
    const priv = await publish(author, { visibility: 'private' });
    expectError(await stats(other, t.id, { from: '2026-01-01', to: '2026-01-02' }), 403, 'forbidden');
    expectError(await stats(other, priv.id, { from: '2026-01-01', to: '2026-01-02' }), 404, 'not_found');
    for (const query of [
      { from: '2026-01-02', to: '2026-01-01' },
      { from: '2025-01-01', to: '2026-01-02' },
      { from: '2026-02-30', to: '2026-03-01' },
      { from: '2026-1-1', to: '2026-01-02' },
      { from: '2026-01-01', to: '2026-01-02', granularity: 'week' },
      { from: '2026-01-01', to: '2026-01-02', extra: 'x' },
      { from: '2026-01-01' },
    ]) {
      expectError(await stats(author, t.id, query as unknown as Record<string, string>), 400, 'validation_error');
    }
    expect((await stats(author, t.id, { from: '2025-01-01', to: '2026-01-01' })).body.days).toHaveLength(366);
  });
});
