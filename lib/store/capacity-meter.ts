/**
 * Asks DynamoDB for ReturnConsumedCapacity=TOTAL on every call of a client and adds up what it
 * reports, split into reads and writes, so a benchmark or a test can charge each request its real cost.
 */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface CapacityMeter {
  reset(): void;
  read: number;
  write: number;
}

const WRITES = /Put|Update|Delete|TransactWrite|BatchWrite/;

export function meterCapacity(client: DynamoDBDocumentClient): CapacityMeter {
  const meter = {
    read: 0,
    write: 0,
    reset() {
      meter.read = 0;
      meter.write = 0;
    },
  };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      (args.input as Record<string, unknown>)['ReturnConsumedCapacity'] = 'TOTAL';
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const units = [consumed].flat().reduce((sum: number, c) => sum + Number((c as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0), 0);
      if (WRITES.test(context.commandName ?? '')) meter.write += units;
      else meter.read += units;
      return result;
    },
    { step: 'initialize', name: 'benchCapacityMeter', override: true },
  );
  return meter;
}
