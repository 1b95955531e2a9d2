/**
 * Asks DynamoDB for ReturnConsumedCapacity=TOTAL on every call of a client and adds up what it
 * reports, split into reads and writes, so a benchmark or a test can charge each request its real cost.
 * It also counts the items the reads went through (a query's ScannedCount, a get's item, a batch
 * get's items), which says why a read cost what it did.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface CapacityMeter {
  reset(): void;
  read: number;
  write: number;
  itemsRead: number;
}

const WRITES = /Put|Update|Delete|TransactWrite|BatchWrite/;

export function meterCapacity(client: DynamoDBDocumentClient): CapacityMeter {
  const meter = {
    read: 0,
    write: 0,
    itemsRead: 0,
    reset() {
      meter.read = 0;
      meter.write = 0;
      meter.itemsRead = 0;
    },
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>)['ReturnConsumedCapacity'] = 'TOTAL';
      const result = await next(args);
      const output = result.output as {
        ConsumedCapacity?: unknown;
        ScannedCount?: number;
        Item?: unknown;
        Responses?: unknown;
      };
      const consumed = output.ConsumedCapacity;
      meter.itemsRead += itemsIn(output);
      const units = [consumed]
        .flat()
        .reduce((sum: number, c) => sum + Number((c as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0), 0);
      if (WRITES.test(context.commandName ?? '')) meter.write += units;
      else meter.read += units;
      return result;
    },
    { step: 'initialize', name: 'benchCapacityMeter', override: true },
  );
  return meter;
}

function itemsIn(output: { ScannedCount?: number; Item?: unknown; Responses?: unknown }): number {
  if (output.ScannedCount !== undefined) return output.ScannedCount;
  if (output.Item !== undefined) return 1;
  // BatchGetItem: items per table; TransactGetItems: one entry per key.
  if (Array.isArray(output.Responses))
    return output.Responses.filter((r: { Item?: unknown }) => r.Item !== undefined).length;
  if (output.Responses)
    return Object.values(output.Responses as Record<string, unknown[]>).reduce((n, items) => n + items.length, 0);
  return 0;
}
