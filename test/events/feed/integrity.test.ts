import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { UNLIMITED_KEY_LIMITS } from '../../../local/gateway/key-throttle.ts';
import { createTestUser, invoke, type TestUser } from '../../support/lambda.ts';
import { useLocalApi } from '../../support/local-api.ts';
import { createAgent, createContract, publishTemplate, SIMPLE_SCHEMA, waitFor } from '../support.ts';
import { type FeedConsumer, finalFeed, followCursor, listenSse } from './consumers.ts';

/**
 * docs/events.md, "The feed position": a consumer that follows next_cursor (or an SSE stream)
 * never steps over an event, however many writers commit at once and however their clocks
 * disagree. 36 contracts move in three parallel waves (fund; verification; release or refund)
 * while a poller and an SSE client follow each party agent; afterwards every event of the final
 * feed must have been seen by both, and none twice by the poller.
 */
// The pollers must follow the feed as fast as they can, faster than one key's usage plan allows
// (docs/limits.md); the per-key throttle is tested in test/limits/key-throttle.test.ts.
const api = useLocalApi({ keyLimits: UNLIMITED_KEY_LIMITS });
const CONTRACTS = 36;

let owner: TestUser;
let templateId: string;

beforeAll(async () => {
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

interface Job {
  route: string;
  contractId: string;
  body?: unknown;
}

/** fund all; verification (every other one fails); release the passed, refund the failed. */
function waves(contractIds: string[]): Job[][] {
  return [
    contractIds.map((contractId) => ({ route: 'fundContract', contractId })),
    contractIds.map((contractId, i) => ({ route: 'recordVerification', contractId, body: { passed: i % 2 === 0 } })),
    contractIds.map((contractId, i) => ({ route: i % 2 === 0 ? 'releaseContract' : 'refundContract', contractId })),
  ];
}

const running: FeedConsumer[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((consumer) => consumer.stop()));
});

async function setUp() {
  const [buyer, seller] = await Promise.all([createAgent(owner), createAgent(owner)]);
  // Made a few at a time: creation is not what is tested, and 36 at once queue on the template's counter.
  const contractIds: string[] = [];
  while (contractIds.length < CONTRACTS) {
    contractIds.push(
      ...(await Promise.all(
        Array.from({ length: 6 }, () => createContract(owner, buyer, templateId, { seller_agent_id: seller })),
      )),
    );
  }
  const consumers: Array<{ agentId: string; poller: FeedConsumer; sse: FeedConsumer }> = [];
  for (const agentId of [buyer, seller]) {
    const consumer = {
      agentId,
      poller: followCursor(api.url, owner.apiKey, agentId),
      sse: await listenSse(api.url, owner.apiKey, agentId),
    };
    running.push(consumer.poller, consumer.sse);
    consumers.push(consumer);
  }
  return { contractIds, consumers };
}

async function checkEveryConsumer(consumers: Awaited<ReturnType<typeof setUp>>['consumers']) {
  for (const { agentId, poller, sse } of consumers) {
    const feed = await finalFeed(api.url, owner.apiKey, agentId);
    expect(feed).toHaveLength(CONTRACTS * 3);
    // Let both catch up with the end of the feed (nothing is written any more), then compare.
    // (a consumer that missed events never gets there: the comparison below then says which)
    await waitFor(
      () => (poller.seen.length >= feed.length && sse.seen.length >= feed.length) || undefined,
      'consumers at the end of the feed',
      10_000,
    ).catch(() => undefined);
    await Promise.all([poller.stop(), sse.stop()]);
    const missedByPoller = feed.filter((id) => !poller.seen.includes(id));
    const missedBySse = feed.filter((id) => !sse.seen.includes(id));
    expect({ missedByPoller: missedByPoller.length, missedBySse: missedBySse.length }).toEqual({
      missedByPoller: 0,
      missedBySse: 0,
    });
    expect(new Set(poller.seen).size).toBe(poller.seen.length);
    expect(poller.seen).toEqual(feed);
    expect(sse.seen).toEqual(feed);
  }
}

describe('no consumer ever steps over an event', () => {
  it('one process: 36 contracts moved in parallel waves', async () => {
    const { contractIds, consumers } = await setUp();
    for (const wave of waves(contractIds)) {
      const answers = await Promise.all(
        wave.map((job) =>
          invoke(job.route, { caller: owner, params: { id: job.contractId }, ...(job.body ? { body: job.body } : {}) }),
        ),
      );
      expect(answers.filter((r) => r.status !== 200).map((r) => r.body)).toEqual([]);
    }
    await checkEveryConsumer(consumers);
  }, 120_000); // 36 contracts and three waves on a busy CI machine

  it('three handler instances (own processes, own DynamoDB clients, clocks skewed by -3 s, 0 and +2 s) writing at once', async () => {
    const { contractIds, consumers } = await setUp();
    const skews = [-3000, 0, 2000];
    const instances = await startInstances(skews.map((skewMs) => ({ skewMs, caller: owner })));
    try {
      for (const wave of waves(contractIds)) {
        const shares = skews.map((_, i) => wave.filter((__, j) => j % skews.length === i));
        const answers = (await instances.run(shares)).flat();
        expect(answers).toHaveLength(wave.length);
        expect(answers.filter((a) => a.status !== 200)).toEqual([]);
      }
    } finally {
      instances.stop();
    }
    await checkEveryConsumer(consumers);
  }, 120_000);
});

const WORKER = fileURLToPath(new URL('./transition-worker.ts', import.meta.url));

type Answer = { status: number; body?: unknown };

/** Starts every instance and waits until all are warm; `run` lets them go at the same moment, one share of a wave each. */
async function startInstances(inputs: Array<{ skewMs: number; caller: TestUser }>) {
  const children = inputs.map((input) => {
    const child = spawn(process.execPath, [WORKER, JSON.stringify(input)], {
      env: process.env,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    let out = '';
    const lines: string[] = [];
    const waiters: Array<() => void> = [];
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      for (let end = out.indexOf('\n'); end >= 0; end = out.indexOf('\n')) {
        lines.push(out.slice(0, end));
        out = out.slice(end + 1);
        for (const w of waiters.splice(0)) w();
      }
    });
    child.once('exit', () => {
      for (const w of waiters.splice(0)) w();
    });
    const nextLine = async (): Promise<string> => {
      while (lines.length === 0) {
        if (child.exitCode !== null) throw new Error(`instance exited with ${child.exitCode}`);
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
      return lines.shift()!;
    };
    return { child, nextLine };
  });
  const stop = () => {
    for (const { child } of children) if (child.exitCode === null) child.kill();
  };
  try {
    for (const { nextLine } of children) expect(await nextLine()).toBe('ready');
  } catch (err) {
    stop();
    throw err;
  }
  return {
    run: async (shares: Job[][]): Promise<Answer[][]> => {
      for (const [i, { child }] of children.entries()) child.stdin.write(`${JSON.stringify(shares[i])}\n`);
      return Promise.all(children.map(async ({ nextLine }) => JSON.parse(await nextLine()) as Answer[]));
    },
    stop,
  };
}
