import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ASSUMED,
  DEPLOYED_DELIVERY,
  deliveryCost,
  expectedSlowestSeconds,
  latencyCdf,
  measuredRoutes,
  withTables,
} from '../bench/_cost-model.ts';
import { FUNCTION_MEMORY_MB } from '../infra/sizing.ts';
import { DELIVERY } from '../lib/core/settings.ts';
import { routes } from '../lib/routes.ts';

const doc = readFileSync(join(import.meta.dirname, '../docs/cost.md'), 'utf8');

describe('docs/cost.md', () => {
  it("carries the tables the model computes from today's settings (npm run bench -- cost rewrites them)", () => {
    expect(withTables(doc)).toBe(doc);
  });

  it('has a measurement of every route but the SSE stream (a client-month of its own)', () => {
    const measured = measuredRoutes();
    expect(routes.filter((r) => !r.streaming && !measured[r.name]).map((r) => r.name)).toEqual([]);
  });

  it('models the delivery function as deployed', () => {
    expect(DEPLOYED_DELIVERY).toEqual({
      memoryMb: FUNCTION_MEMORY_MB['deliver'],
      batchSize: DELIVERY.batchSize,
      concurrent: true,
      index: 'failures',
      inDoubtCap: DELIVERY.endpointInFlight,
    });
  });

  it('keeps the deployed total per million deliveries within the $2.50 budget, the cap on endpoints in doubt included', () => {
    const deployed = deliveryCost(DEPLOYED_DELIVERY);
    const uncapped = deliveryCost({ ...DEPLOYED_DELIVERY, inDoubtCap: undefined });
    expect(deployed.total).toBeLessThanOrEqual(2.5);
    // The cap costs lease writes for the batches of endpoints in doubt, and saves no more than it costs.
    expect(deployed.lines[0]!.usd).toBeGreaterThan(uncapped.lines[0]!.usd);
    expect(deployed.total).toBeGreaterThan(uncapped.total);
    expect(doc).toContain(`**$${deployed.total.toFixed(2)}**`);
  });
});

describe("the receivers' latency mix", () => {
  it('answers at p50 50 ms and p99 2 s for the 99 % that answer, and never after the deadline', () => {
    const answering = 1 - ASSUMED.latency.timeoutShare;
    expect(latencyCdf(50)).toBeCloseTo(answering * 0.5, 6);
    expect(latencyCdf(1999.999)).toBeCloseTo(answering * 0.99, 4);
    expect(latencyCdf(2000)).toBe(answering);
    expect(latencyCdf(9999)).toBe(answering);
    expect(latencyCdf(10_000)).toBe(1);
  });

  it('makes a batch wait at least as long as its chance of a timeout says, and longer the larger it is', () => {
    for (const n of [1, 10, 25]) {
      const slowest = expectedSlowestSeconds(n);
      expect(slowest, String(n)).toBeGreaterThan((1 - 0.99 ** n) * 10);
      expect(slowest, String(n)).toBeLessThan(10);
    }
    expect(expectedSlowestSeconds(10)).toBeGreaterThan(expectedSlowestSeconds(1));
    // One after another, a batch of 10 waits ten single POSTs: longer than all at once.
    expect(deliveryCost({ ...DEPLOYED_DELIVERY, concurrent: false }).batchSeconds).toBeGreaterThan(
      deliveryCost(DEPLOYED_DELIVERY).batchSeconds,
    );
  });

  it('prices the status index at 3 write units of a first-time success', () => {
    const writes = (index: 'full' | 'none') => deliveryCost({ ...DEPLOYED_DELIVERY, index }).lines[0]!.usd;
    expect(writes('full') - writes('none')).toBeCloseTo(3 * 0.625, 6);
  });
});
