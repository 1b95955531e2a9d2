/**
 * Content filters (docs/webhooks.md, "Filters"): what judging one event costs, against a baseline
 * of the same run (serializing and signing that event, which every delivery does), and what a
 * filter saves per million events at a 10 % match rate, priced with the delivery cost model
 * (bench/_cost-model.ts, docs/cost.md) and the evaluation's own Lambda time.
 */

import { PRICES } from '../infra/prices.ts';
import { FUNCTION_MEMORY_MB } from '../infra/sizing.ts';
import { STAGES } from '../infra/stage-config.ts';
import type { AgentRecord } from '../lib/agents/model.ts';
import type { ServiceEvent } from '../lib/events/feed/event.ts';
import { passesWebhookFilter } from '../lib/events/feed/subscription-filter.ts';
import { FILTER_LIMITS, type Filter, filterCost } from '../lib/filters/filter.ts';
import { filterSchema } from '../lib/filters/grammar.ts';
import { signatureHeaders } from '../lib/webhooks/signature.ts';
import { DEPLOYED_DELIVERY, deliveryCost } from './_cost-model.ts';

const MATCH_RATE = 0.1;
/** A vCPU is 1,769 MB of Lambda memory: below it, CPU time stretches by that ratio. */
const VCPU_MB = 1769;

const event: ServiceEvent = {
  id: 'evt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC',
  type: 'contract.funded',
  created_at: '2026-12-03T10:00:00.000Z',
  agent_id: 'agt_01KAKQ7Y3M8ZJ2XWQ4V6R9T0BC',
  schema_version: 1,
  data: { contract_id: 'ctr_01KAKQ8A1B2C3D4E5F6G7H8J9K', status: 'FUNDED', amount_cents: 2_500 },
};

/** What an agent that pays a model call per event would write: its kind, a bound, a set of statuses. */
const typical: Filter = {
  op: 'and',
  clauses: [
    { op: 'eq', path: 'type', value: 'contract.funded' },
    { op: 'gte', path: 'data.amount_cents', value: 10_000 },
    { op: 'in', path: 'data.status', values: ['FUNDED', 'VERIFIED'] },
  ],
};

/** As costly as the grammar allows: every `in` misses, so each value is compared (filterCost at the bound). */
function worstCase(): Filter {
  const values = Array.from({ length: FILTER_LIMITS.maxInValues }, (_, i) => `s${i}`);
  const clauses: Filter[] = [];
  while (
    filterCost({ op: 'or', clauses: [...clauses, { op: 'in', path: 'data.status', values }] }) <= FILTER_LIMITS.maxCost
  )
    clauses.push({ op: 'in', path: 'data.status', values });
  return { op: 'or', clauses };
}

function perCall(iterations: number, fn: () => unknown): number {
  for (let i = 0; i < Math.min(iterations, 10_000); i++) fn(); // warm-up
  const start = process.hrtime.bigint();
  for (let i = 0; i < iterations; i++) fn();
  return Number(process.hrtime.bigint() - start) / iterations;
}

const agentWith = (filter: Filter) =>
  ({ filter, schema_versions: { 'contract.funded': 1 }, events: ['contract.funded'] }) as unknown as AgentRecord;

const money = (usd: number) => (usd >= 0.01 ? `$${usd.toFixed(2)}` : `$${usd.toPrecision(2)}`);

export async function run(): Promise<string> {
  const worst = worstCase();
  if (!filterSchema.safeParse(worst).success) throw new Error('the worst-case filter is outside the grammar');
  const typicalAgent = agentWith(typical);
  const worstAgent = agentWith(worst);
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const baselineNs = perCall(50_000, () => {
    const body = JSON.stringify(event);
    return signatureHeaders(secret, body, event.id, new Date(), []);
  });
  const typicalNs = perCall(500_000, () => passesWebhookFilter(typicalAgent, event));
  const worstNs = perCall(20_000, () => passesWebhookFilter(worstAgent, event));

  // Per million events at a 10 % match rate: 900,000 deliveries not made, each at the modelled price
  // of a delivery; against it, the evaluation's time on the route that makes the event (the outbox).
  const perDelivery = deliveryCost(DEPLOYED_DELIVERY).total / 1e6;
  const routeMb = FUNCTION_MEMORY_MB['fundContract'] ?? STAGES['prod']!.defaultMemoryMb;
  const evaluationUsd = (ns: number) =>
    ((1e6 * ns * Math.max(1, VCPU_MB / routeMb)) / 1e9) * (routeMb / 1024) * PRICES.lambdaArmGbSecond;
  const unfiltered = 1e6 * perDelivery;
  const filtered = 1e6 * MATCH_RATE * perDelivery + evaluationUsd(typicalNs);
  return [
    '### Filters: evaluation per event, and the saving per million events',
    '',
    '| Operation | Per event | Baseline | Ratio |',
    '|---|---|---|---|',
    `| Typical filter (3 clauses, cost ${filterCost(typical)}), at the pins | ${(typicalNs / 1000).toFixed(2)} µs | serialize + sign the delivery body: ${(baselineNs / 1000).toFixed(2)} µs | ${(typicalNs / baselineNs).toFixed(3)}× |`,
    `| Worst filter the grammar allows (cost ${filterCost(worst)} of ${FILTER_LIMITS.maxCost}) | ${(worstNs / 1000).toFixed(2)} µs | the same | ${(worstNs / baselineNs).toFixed(3)}× |`,
    '',
    `| Per million events, 10 % matching | Deliveries | Cost |`,
    '|---|---|---|',
    `| No filter (the receiver drops 90 %) | 1,000,000 | ${money(unfiltered)} |`,
    `| Filter (typical, judged in the outbox at ${routeMb} MB) | ${(1e6 * MATCH_RATE).toLocaleString('en-US')} | ${money(filtered)} (evaluation ${money(evaluationUsd(typicalNs))}) |`,
    `| **Saving** | ${(1e6 * (1 - MATCH_RATE)).toLocaleString('en-US')} | **${money(unfiltered - filtered)}** (${(((unfiltered - filtered) / unfiltered) * 100).toFixed(1)} %) |`,
    '',
    `A delivery priced at ${money(perDelivery * 1e6)} per million (docs/cost.md, as deployed), the evaluation at the route's memory share of a vCPU.`,
  ].join('\n');
}
