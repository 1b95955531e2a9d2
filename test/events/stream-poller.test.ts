import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { newId } from '../../lib/core/ids.ts';
import { db, tableName } from '../../lib/store/client.ts';
import { streamArn } from '../../lib/store/create-table.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { ENTITY } from '../../lib/store/keys.ts';
import { laneOf, startStreamPoller } from '../../local/emulators/stream-poller.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import { waitFor } from './support.ts';

/**
 * The local stream event source on DynamoDB Local's real stream: the relay's filter, durable
 * checkpoints across restarts, TRIM_HORIZON without one, and retry from the earliest failure.
 * The handler here is a recorder: the poller is what is under test.
 */
let arn: string;
beforeAll(async () => {
  arn = await streamArn(tableName());
});

const agentId = newId('agt');
async function putEventRow(id = newId('evt'), agent = agentId): Promise<string> {
  await db().send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...keys.event(agent, id),
        entity: ENTITY.event,
        id,
        type: 'contract.funded',
        agent_id: agent,
        deliver: true,
      },
    }),
  );
  return id;
}
async function putOtherRow(): Promise<void> {
  const id = newId('ctr');
  await db().send(
    new PutCommand({ TableName: tableName(), Item: { ...keys.contract(id), entity: ENTITY.contract, id } }),
  );
}

function recorder(fail?: (record: DynamoDBRecord, calls: number) => boolean) {
  const seen: string[] = [];
  let calls = 0;
  const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
    calls++;
    const failures: { itemIdentifier: string }[] = [];
    for (const record of event.Records) {
      expect(record).toMatchObject({
        eventName: 'INSERT',
        eventSource: 'aws:dynamodb',
        eventSourceARN: arn,
        dynamodb: { StreamViewType: 'NEW_AND_OLD_IMAGES' },
      });
      if (fail?.(record, calls)) failures.push({ itemIdentifier: record.dynamodb!.SequenceNumber! });
      else if (failures.length === 0) seen.push(record.dynamodb!.NewImage!['id']!.S!);
    }
    return { batchItemFailures: failures };
  };
  return { seen, handler };
}

describe('local stream poller', () => {
  it('passes only new event rows, checkpoints them, and resumes after a restart without replaying', async () => {
    const dir = scratchDir('stream-');
    const checkpointFile = join(dir, 'checkpoint.json');
    const first = recorder();
    let poller = startStreamPoller({
      endpoint: process.env['DYNAMODB_ENDPOINT']!,
      streamArn: arn,
      handler: first.handler,
      checkpointFile,
      idleMs: 20,
    });
    const a = await putEventRow();
    await putOtherRow();
    const b = await putEventRow();
    await waitFor(() => first.seen.length >= 2 || undefined, 'two events');
    await poller.stop();
    expect(first.seen.filter((id) => id === a || id === b)).toEqual([a, b]);
    expect(JSON.parse(readFileSync(checkpointFile, 'utf8'))).toMatchObject({ streamArn: arn });

    // Written while "the process is down".
    const c = await putEventRow();
    const second = recorder();
    poller = startStreamPoller({
      endpoint: process.env['DYNAMODB_ENDPOINT']!,
      streamArn: arn,
      handler: second.handler,
      checkpointFile,
      idleMs: 20,
    });
    await waitFor(() => second.seen.includes(c) || undefined, 'the event written while down');
    await new Promise((r) => setTimeout(r, 200));
    await poller.stop();
    expect(second.seen).toEqual([c]);

    // No checkpoint: from the start of the stream (TRIM_HORIZON).
    const fresh = recorder();
    poller = startStreamPoller({
      endpoint: process.env['DYNAMODB_ENDPOINT']!,
      streamArn: arn,
      handler: fresh.handler,
      idleMs: 20,
    });
    await waitFor(() => fresh.seen.includes(c) || undefined, 'a replay from the start');
    await poller.stop();
    expect(fresh.seen.filter((id) => [a, b, c].includes(id))).toEqual([a, b, c]);
  });

  it('retries a batch from its earliest failed record, never the records before it', async () => {
    const ids = [newId('evt'), newId('evt'), newId('evt')];
    let failures = 0;
    const rec = recorder((record) => {
      const fail = record.dynamodb!.NewImage!['id']!.S! === ids[0] && failures === 0;
      if (fail) failures++;
      return fail;
    });
    const dir = scratchDir('stream-');
    const poller = startStreamPoller({
      endpoint: process.env['DYNAMODB_ENDPOINT']!,
      streamArn: arn,
      handler: rec.handler,
      checkpointFile: join(dir, 'cp.json'),
      idleMs: 20,
    });
    await waitFor(() => rec.seen.length > 0 || undefined, 'the backlog', 5000).catch(() => undefined);
    const before = rec.seen.length;
    for (const id of ids) await putEventRow(id);
    await waitFor(() => ids.every((id) => rec.seen.includes(id)) || undefined, 'all three');
    await poller.stop();
    expect(failures).toBe(1);
    expect(rec.seen.slice(before).filter((id) => ids.includes(id))).toEqual(ids);
  });

  it("with a parallelization factor, runs other agents' batches while one waits, each agent in order, and checkpoints only past finished pages", async () => {
    const LANES = 4;
    const laneOfAgent = (agent: string) =>
      laneOf({ dynamodb: { Keys: { PK: { S: keys.event(agent, 'x').PK } } } } as DynamoDBRecord, LANES);
    const slow = newId('agt');
    let fast = newId('agt');
    while (laneOfAgent(fast) === laneOfAgent(slow)) fast = newId('agt');
    const slowIds = [newId('evt'), newId('evt'), newId('evt')];
    const seen: string[] = [];
    const sequences = new Map<string, string>();
    const inFlight = new Map<string, number>();
    let mostAtOnce = 0;
    let releaseSlow!: () => void;
    const slowHeld = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const handler = async (event: DynamoDBStreamEvent): Promise<DynamoDBBatchResponse> => {
      const agents = new Set(event.Records.map((r) => r.dynamodb!.NewImage!['agent_id']!.S!));
      expect(agents.size).toBe(1); // different partition keys hashed to one lane may share a batch; these two do not
      const agent = [...agents][0]!;
      inFlight.set(agent, (inFlight.get(agent) ?? 0) + 1);
      mostAtOnce = Math.max(mostAtOnce, inFlight.get(agent)!);
      const ids = event.Records.map((r) => r.dynamodb!.NewImage!['id']!.S!);
      for (const r of event.Records) sequences.set(r.dynamodb!.NewImage!['id']!.S!, r.dynamodb!.SequenceNumber!);
      if (agent === slow && ids.includes(slowIds[0]!)) await slowHeld;
      seen.push(...ids);
      inFlight.set(agent, inFlight.get(agent)! - 1);
      return { batchItemFailures: [] };
    };
    const dir = scratchDir('stream-');
    const checkpointFile = join(dir, 'cp.json');
    const checkpoint = () => {
      try {
        return Object.values(
          (JSON.parse(readFileSync(checkpointFile, 'utf8')) as { shards: Record<string, string> }).shards,
        );
      } catch {
        return [];
      }
    };
    const poller = startStreamPoller({
      endpoint: process.env['DYNAMODB_ENDPOINT']!,
      streamArn: arn,
      handler,
      checkpointFile,
      idleMs: 20,
      parallelization: LANES,
      filter: (record) => [slow, fast].includes(record.dynamodb!.NewImage?.['agent_id']?.S ?? ''),
    });
    try {
      // A page before the waiting one: the checkpoint gets as far as it, and no further.
      const before = await putEventRow(newId('evt'), fast);
      await waitFor(
        () =>
          checkpoint().some((at) => BigInt(at) >= BigInt(sequences.get(before) ?? Number.MAX_SAFE_INTEGER)) ||
          undefined,
        'a checkpoint past the first page',
      );
      expect(seen).toEqual([before]);
      await putEventRow(slowIds[0], slow);
      await waitFor(() => inFlight.get(slow) === 1 || undefined, "the slow agent's first batch in the handler");
      for (const id of slowIds.slice(1)) await putEventRow(id, slow);
      const fastId = await putEventRow(newId('evt'), fast);
      // Served while the slow agent's batch still waits: a poller of one batch at a time would never get here.
      await waitFor(() => seen.includes(fastId) || undefined, "the other agent's event, beside the waiting batch");
      expect(seen.filter((id) => slowIds.includes(id))).toEqual([]);
      // The checkpoint has not passed the waiting batch's page: a restart now would hand it over again.
      const sequenceOfFirst = await waitFor(() => sequences.get(slowIds[0]!), 'the sequence number');
      expect(checkpoint().length).toBeGreaterThan(0);
      expect(checkpoint().every((at) => BigInt(at) < BigInt(sequenceOfFirst))).toBe(true);
      releaseSlow();
      await waitFor(() => slowIds.every((id) => seen.includes(id)) || undefined, "the slow agent's events");
      expect(seen.filter((id) => slowIds.includes(id))).toEqual(slowIds);
      expect(mostAtOnce).toBe(1);
      await waitFor(
        () => checkpoint().some((at) => BigInt(at) >= BigInt(sequences.get(slowIds[2]!) ?? '0')) || undefined,
        'the checkpoint past every page',
      );
    } finally {
      releaseSlow();
      await poller.stop();
    }
  });
});
