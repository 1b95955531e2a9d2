/**
 * `npm run bench -- cost`: measures what each route's sample request (its row's example, local/demo/sample-event.ts) costs
 * in DynamoDB units, against a freshly seeded local runtime as `test/local/samples-run.test.ts`
 * runs them (DynamoDB Local reports ConsumedCapacity, indexes included), keeps the counts in
 * bench/cost-measured.json, and writes docs/cost.md's tables from the model (bench/_cost-model.ts).
 */

import { AsyncLocalStorage } from 'node:async_hooks';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { InitializeHandler, InitializeHandlerArguments, MiddlewareStack } from '@smithy/types';
import { decorateAwsClients } from '../lib/aws/client-hooks.ts';
import { readDelivery } from '../lib/events/delivery/store.ts';
import { tableName } from '../lib/store/client.ts';
import { DEMO_DELIVERY } from '../local/demo/identity.ts';
import { routesInSampleOrder, sampleEvent } from '../local/demo/sample-event.ts';
import { seedDemoData } from '../local/demo/seed.ts';
import { startDemoWebhookSink } from '../local/demo/webhook-sink.ts';
import { startEventPipeline } from '../local/emulators/event-pipeline.ts';
import { invokeFunction } from '../local/invoke.ts';
import { publishRuntime } from '../local/runtime-file.ts';
import { MEASURED_FILE, type RouteUnits, withTables } from './_cost-model.ts';
import { withBenchStore } from './_store.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const READS = new Set([
  'GetItemCommand',
  'QueryCommand',
  'ScanCommand',
  'BatchGetItemCommand',
  'TransactGetItemsCommand',
]);
const WRITES = new Set([
  'PutItemCommand',
  'UpdateItemCommand',
  'DeleteItemCommand',
  'BatchWriteItemCommand',
  'TransactWriteItemsCommand',
]);

type Capacity = { CapacityUnits?: number };
/** The counts of the invocation a call is made for: the event pipeline's workers run in the same process and are not counted. */
const counting = new AsyncLocalStorage<RouteUnits>();

/** Asks DynamoDB for the capacity of every call of a counted invocation and adds it up by kind (reads, writes). */
function countCapacity(stack: MiddlewareStack<object, object>): void {
  stack.add(
    (next: InitializeHandler<object, object>, context: { commandName?: string }) =>
      async (args: InitializeHandlerArguments<object>) => {
        const name = context.commandName ?? '';
        const counted = counting.getStore();
        const kind = !counted ? undefined : READS.has(name) ? 'reads' : WRITES.has(name) ? 'writes' : undefined;
        if (kind) (args.input as Record<string, unknown>)['ReturnConsumedCapacity'] = 'TOTAL';
        const result = await next(args);
        if (kind && counted) {
          const output = result.output as { ConsumedCapacity?: Capacity | Capacity[] } | undefined;
          const consumed = output?.ConsumedCapacity;
          counted[kind] += (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []).reduce(
            (t, c) => t + (c.CapacityUnits ?? 0),
            0,
          );
          counted.calls += 1;
        }
        return result;
      },
    { step: 'initialize', name: 'benchCountCapacity' },
  );
}

async function measureRoutes(): Promise<Record<string, RouteUnits>> {
  process.env['DEVELOPMENT_MODE'] = 'true';
  const sink = await startDemoWebhookSink();
  await seedDemoData({ webhookSink: sink.url });
  const pipeline = await startEventPipeline({
    tableName: tableName(),
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
  });
  const withdraw = publishRuntime(process.env['DYNAMODB_ENDPOINT']!, {
    sqs_endpoint: pipeline.sqsEndpoint,
    queue_url: pipeline.queueUrl,
  });
  try {
    // The delivery the retryDelivery sample names is made by the relay from the seeded events.
    const deadline = Date.now() + 90_000;
    while ((await readDelivery(DEMO_DELIVERY.agentId, DEMO_DELIVERY.deliveryId))?.status !== 'succeeded') {
      if (Date.now() > deadline) throw new Error('the demo delivery did not succeed within 90 s');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    decorateAwsClients((client, service) => {
      if (service === 'dynamodb') countCapacity(client.middlewareStack as MiddlewareStack<object, object>);
    });
    const measured: Record<string, RouteUnits> = {};
    // In the samples test's order, which every sample's data survives.
    for (const { name } of routesInSampleOrder().filter((r) => !r.streaming)) {
      const counted = { reads: 0, writes: 0, calls: 0 };
      await counting.run(counted, () => invokeFunction(name, sampleEvent(name)));
      measured[name] = counted;
    }
    return measured;
  } finally {
    withdraw();
    await pipeline.stop();
    await sink.close();
  }
}

export async function run(): Promise<string> {
  const measured = await withBenchStore('cost', measureRoutes);
  writeFileSync(join(root, MEASURED_FILE), `${JSON.stringify({ routes: measured }, null, 2)}\n`);
  const docFile = join(root, 'docs/cost.md');
  writeFileSync(docFile, withTables(readFileSync(docFile, 'utf8')));
  const rows = Object.entries(measured).map(([name, u]) => `| ${name} | ${u.calls} | ${u.reads} | ${u.writes} |`);
  return [
    '### DynamoDB units per sample request (docs/cost.md)',
    '',
    '| Route | Calls | Read units | Write units |',
    '|---|---|---|---|',
    ...rows,
  ].join('\n');
}
