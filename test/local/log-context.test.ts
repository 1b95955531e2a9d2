import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BASE_PATHS } from '../../lib/core/settings.ts';
import type { EventPipeline } from '../../local/emulators/event-pipeline.ts';
import {
  createAgent,
  enableWebhook,
  startFilePipeline,
  startWebhookReceiver,
  type WebhookReceiver,
  waitFor,
} from '../events/support.ts';
import { writtenDuring } from '../support/captured-output.ts';
import { createTestUser, type TestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';

/**
 * The local runtime runs many invocations in one process at once: HTTP routes through the gateway
 * stand-in and the workers of the event pipeline. Each log line must carry its own invocation's
 * function name and request ids (a module-global context once gave 13 of 20 `delivery attempt`
 * lines another handler's). Here webhook verifications (the verify route logs `webhook handshake`)
 * run over HTTP while test events go through relay → queue → delivery worker (`delivery attempt`).
 */
const AGENTS = 6;

let pipeline: EventPipeline;
let receiver: WebhookReceiver;
let owner: TestUser;
const agentIds: string[] = [];
const api = useLocalApi();
const saved = process.env['LOG_LEVEL'];

beforeAll(async () => {
  process.env['LOG_LEVEL'] = 'info';
  pipeline = await startFilePipeline({ maxReceiveCount: 3 });
  receiver = await startWebhookReceiver();
  // Deliveries answered after a random wait, so the workers' awaits interleave with the routes'.
  receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), Math.random() * 40));
  owner = await createTestUser();
  for (let i = 0; i < AGENTS; i++) {
    const id = await createAgent(owner);
    await enableWebhook(owner, id, receiver.url, ['contract.funded']);
    agentIds.push(id);
  }
});

afterAll(async () => {
  await pipeline?.stop();
  await receiver?.close();
  if (saved === undefined) delete process.env['LOG_LEVEL'];
  else process.env['LOG_LEVEL'] = saved;
});

const post = (path: string) =>
  fetch(`${api.url}${BASE_PATHS.agents}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${owner.apiKey}` },
  });

const linesOf = (output: string) =>
  output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, string>);
const attemptLines = (output: string) => linesOf(output).filter((l) => l['message'] === 'delivery attempt');

describe('log context under concurrent invocations in the local runtime', () => {
  it("gives every line its own invocation's function name and request ids", async () => {
    const verifyRequestIds = new Map<string, string>();
    const output = await writtenDuring(async (soFar) => {
      await Promise.all(
        agentIds.flatMap((id) => [
          post(`/agents/${id}/webhook/test`).then((res) => expect(res.status).toBe(202)),
          post(`/agents/${id}/webhook/verify`).then((res) => {
            expect(res.status).toBe(200);
            verifyRequestIds.set(id, res.headers.get('x-request-id')!);
          }),
        ]),
      );
      // The worker logs an attempt once it has recorded it, a moment after the receiver has it.
      await waitFor(
        () => agentIds.every((id) => attemptLines(soFar()).some((l) => l['agentId'] === id)),
        'a delivery attempt logged for every agent',
      );
    });
    const handshakes = linesOf(output).filter((l) => l['message'] === 'webhook handshake');
    const attempts = attemptLines(output);
    expect(handshakes).toHaveLength(AGENTS);
    expect(attempts.length).toBeGreaterThanOrEqual(AGENTS);

    for (const line of handshakes) {
      expect(line).toMatchObject({
        function_name: 'verifyWebhook',
        correlation_id: verifyRequestIds.get(line['agentId']!),
      });
    }
    // One verify invocation per agent: each line's Lambda request id is its own.
    expect(new Set(handshakes.map((l) => l['function_request_id'])).size).toBe(AGENTS);
    const routeInvocations = new Set(handshakes.map((l) => l['function_request_id']));
    for (const line of attempts) {
      expect(line['function_name']).toBe('deliver');
      // Workers are invoked by the event source, not through the gateway: no API request id.
      expect(line['correlation_id']).toBeUndefined();
      expect(line['function_request_id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(routeInvocations.has(line['function_request_id']!)).toBe(false);
    }
  });
});
