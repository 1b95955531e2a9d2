/**
 * The smoke run (docs/deployment.md, "Smoke test of a stage"): what a new user does first, through
 * the client library, against one stage, each step timed: publish → search → install → an agent
 * with a webhook → its handshake → a contract → the signed delivery → push, connect and resume →
 * cleanup. A step that fails ends the run (cleanup still runs) with the reason.
 */
import { pushUrlOf } from '../../client/http/push-socket.ts';
import { serviceRoot } from '../../client/http/url.ts';
import { type FeedEvent, MarketplaceClient } from '../../client/index.ts';
import { describeError, SmokeFailure } from './failure.ts';
import { firstPushed, pushedUntil } from './push.ts';
import { type DeliveredEvent, type SmokeReceiver, startSmokeReceiver } from './receiver.ts';

export interface SmokeOptions {
  /** The stage's base URL (`ApiUrl` output, a custom domain, or `http://localhost:3000`). */
  url: string;
  key: string;
  /** The push channel's WebSocket URL; default the base URL's own `/push` (the local runtime's). */
  pushUrl?: string | undefined;
  /** A public URL that reaches `receiverPort` on this machine (a tunnel): the webhook steps use it. */
  receiverUrl?: string | undefined;
  receiverPort?: number | undefined;
  /** No webhook even against a local runtime: the delivery step reads the agent's feed, as without a receiver URL. */
  feedOnly?: boolean | undefined;
  /** How long one step may wait for the service (search, a delivery, a pushed event). */
  stepTimeoutMs: number;
  print: (line: string) => void;
}

export interface StepTiming {
  step: string;
  ms: number;
  note: string;
}

/** The stage serves webhooks to this machine's loopback only in development mode (`npm start`). */
export function isLoopbackUrl(url: string): boolean {
  return ['localhost', '127.0.0.1', '[::1]'].includes(new URL(url).hostname);
}

export const contractOf = (event: FeedEvent | DeliveredEvent): string | undefined =>
  (event.data as { contract_id?: string }).contract_id;

/** Asks `attempt` every half second until it gives a value or the step's time is up. */
async function poll<T>(what: string, timeoutMs: number, attempt: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await attempt();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new SmokeFailure(`${what}: not within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Runs every step; resolves with their timings, or rejects with the first failure (after cleanup). */
export async function runSmoke(options: SmokeOptions): Promise<StepTiming[]> {
  const { print, stepTimeoutMs: timeout } = options;
  const local = isLoopbackUrl(options.url);
  if (!local && !options.pushUrl)
    throw new SmokeFailure(
      '--push-url (or --stage) is required for a deployed stage: the PushUrl output of TemplateMarketplace-<stage>-Api.',
    );
  const client = new MarketplaceClient({
    apiKey: options.key,
    baseUrl: options.url,
    ...(options.pushUrl ? { pushUrl: options.pushUrl } : {}),
  });
  const run = `smk${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}`;
  const timings: StepTiming[] = [];
  const cleanups: Array<[string, () => Promise<unknown>]> = [];
  const step = async (name: string, work: () => Promise<string>) => {
    const started = performance.now();
    let note: string;
    try {
      note = await work();
    } catch (err) {
      print(`✗ ${name}: ${describeError(err)}`);
      throw err instanceof SmokeFailure ? err : new SmokeFailure(`${name}: ${describeError(err)}`);
    }
    const ms = Math.round(performance.now() - started);
    timings.push({ step: name, ms, note });
    print(`✓ ${name.padEnd(9)} ${String(ms).padStart(6)} ms  ${note}`);
  };

  const { receiver, webhookUrl } = await receiverFor(options, local);
  try {
    await step('health', async () => {
      // The base URL may carry the API Gateway stage's path (`…/prod/`): /health is under it.
      const health = `${options.url.replace(/\/+$/, '')}/health`;
      const answer = await fetch(health, { signal: AbortSignal.timeout(timeout) });
      if (answer.status !== 200) throw new SmokeFailure(`GET /health answered ${answer.status}`);
      return `GET /health 200`;
    });

    let templateId = '';
    const slug = `${run}-check`;
    await step('publish', async () => {
      const template = await client.templates.publish({
        name: `Smoke ${run}`,
        slug,
        category: 'http',
        version: '1.0.0',
        description: 'Made by the smoke run (npm run smoke); made private when it ends.',
        schema: {
          variables: [{ name: 'url', type: 'url', required: true }],
          checks: [{ id: 'status', type: 'http_status', config: { url: '{{url}}', expect: 200 } }],
        },
      });
      templateId = template.id;
      cleanups.push(['template made private', () => client.templates.update(templateId, { visibility: 'private' })]);
      return `template ${template.id} (${slug})`;
    });

    await step('search', async () => {
      const started = Date.now();
      await poll(`template ${slug} found by search`, timeout, async () => {
        const page = await client.templates.list({ search: run, sort: 'recent', limit: 5 });
        return page.data.some((t) => t.id === templateId) ? true : undefined;
      });
      return `found by search ${((Date.now() - started) / 1000).toFixed(1)} s after the publish`;
    });

    await step('install', async () => {
      const install = await client.templates.install(templateId);
      if (!install.created) throw new SmokeFailure('the first install answered created: false');
      return 'installed into the key’s workspace';
    });

    let agentId = '';
    await step('agent', async () => {
      const agent = await client.agents.create({ name: `smoke ${run}` });
      agentId = agent.id;
      cleanups.unshift(['agent deleted', () => client.agents.delete(agentId)]);
      if (!receiver || !webhookUrl) return `agent ${agent.id}, no webhook (the agent's feed stands in for it)`;
      const configured = await client.agents.configureWebhook(agent.id, {
        webhook_url: webhookUrl,
        events: ['contract.funded', 'contract.released'],
      });
      receiver.secret = configured.webhook_secret ?? '';
      if (!receiver.secret) throw new SmokeFailure('the first webhook configuration returned no webhook_secret');
      return `agent ${agent.id}, webhook ${webhookUrl} ${configured.webhook_status}`;
    });

    if (receiver) {
      await step('verify', async () => {
        const agent = await client.agents.verifyWebhook(agentId);
        if (agent.webhook_status !== 'ENABLED')
          throw new SmokeFailure(`the webhook is ${agent.webhook_status} after the handshake, not ENABLED`);
        if (receiver.challenges < 1) throw new SmokeFailure('ENABLED without a challenge reaching the receiver');
        return `challenge answered, webhook ENABLED`;
      });
    }

    let contractId = '';
    await step('contract', async () => {
      const contract = await client.templates.instantiate(templateId, {
        variables: { url: 'https://example.com/health' },
        amount_cents: 100,
        agent_id: agentId,
      });
      contractId = contract.id;
      const funded = await client.contracts.fund(contract.id);
      return `contract ${contract.id} ${funded.status}`;
    });

    await step('delivery', async () => {
      const funded = (event: FeedEvent | DeliveredEvent) =>
        event.type === 'contract.funded' && contractOf(event) === contractId;
      if (receiver) {
        const event = await receiver
          .waitFor(funded, AbortSignal.timeout(timeout))
          .catch(() =>
            Promise.reject(
              new SmokeFailure(
                `no signed contract.funded reached the receiver within ${timeout / 1000} s` +
                  (receiver.refused.length ? ` (refused: ${receiver.refused.join(', ')})` : ''),
              ),
            ),
          );
        return `${event.type} ${event.id} received, signature verified`;
      }
      const event = await poll('contract.funded in the agent’s feed', timeout, async () =>
        (await client.events.list(agentId, { limit: 50 })).data.find(funded),
      );
      return `${event.type} ${event.id} in the agent’s feed (polled)`;
    });

    let firstId = '';
    await step('push', async () => {
      const event = await firstPushed(client, agentId, timeout, (e) => e.type === 'contract.funded');
      firstId = event.id;
      return `connected, ${event.type} ${event.id} pushed; disconnected`;
    });

    await step('resume', async () => {
      await client.contracts.recordVerification(contractId, { passed: true });
      await client.contracts.release(contractId);
      // The socket itself, not events.subscribe: the client drops what it has seen already, and
      // this step is about the service sending nothing at or before `after`.
      const url = new URL(options.pushUrl ?? pushUrlOf(serviceRoot(options.url)));
      url.searchParams.set('agent_id', agentId);
      url.searchParams.set('after', firstId);
      const frames = await pushedUntil(url.toString(), options.key, timeout, (frame) => {
        const event = frame as FeedEvent;
        return event.type === 'contract.released' && contractOf(event) === contractId;
      });
      const events = frames as FeedEvent[];
      const old = events.filter((e) => e.id <= firstId);
      if (old.length)
        throw new SmokeFailure(`resumed after ${firstId} but was pushed ${old.map((e) => e.id).join(', ')}`);
      const released = events.at(-1)!;
      // Waited for, so no delivery is still being tried when cleanup deletes the agent.
      if (receiver)
        await receiver
          .waitFor((e) => e.id === released.id, AbortSignal.timeout(timeout))
          .catch(() => {
            throw new SmokeFailure(
              `${released.type} ${released.id} was pushed but not delivered within ${timeout / 1000} s`,
            );
          });
      return `reconnected after ${firstId}: ${events.map((e) => e.type).join(', ')} pushed${receiver ? ' (and delivered)' : ''}`;
    });
  } catch (err) {
    // The step's failure is the run's; cleanup still runs and prints its own outcome.
    await cleanup(cleanups, timings, print).catch(() => undefined);
    throw err;
  } finally {
    await receiver?.close();
  }
  await cleanup(cleanups, timings, print);
  return timings;
}

/** Where the webhook points: a tunnel's public URL, or this machine's loopback for a local runtime; none otherwise. */
async function receiverFor(
  options: SmokeOptions,
  local: boolean,
): Promise<{ receiver?: SmokeReceiver; webhookUrl?: string }> {
  if (options.receiverUrl && !options.feedOnly) {
    // Loopback only: a tunnel's client forwards to it from this machine.
    const receiver = await startSmokeReceiver(options.receiverPort ?? 8080);
    return { receiver, webhookUrl: options.receiverUrl };
  }
  if (!local || options.feedOnly) return {};
  const receiver = await startSmokeReceiver(options.receiverPort ?? 0);
  return { receiver, webhookUrl: `http://127.0.0.1:${receiver.port}/` };
}

/** Undoes what the run made, newest first; a step that fails is printed, the rest still run. */
async function cleanup(
  cleanups: Array<[string, () => Promise<unknown>]>,
  timings: StepTiming[],
  print: (line: string) => void,
): Promise<void> {
  const started = performance.now();
  const done: string[] = [];
  const failed: string[] = [];
  for (const [what, undo] of cleanups) {
    try {
      await undo();
      done.push(what);
    } catch (err) {
      failed.push(`${what}: ${describeError(err)}`);
    }
  }
  const ms = Math.round(performance.now() - started);
  if (cleanups.length === 0) return;
  if (failed.length) {
    print(`✗ cleanup: ${failed.join('; ')}`);
    throw new SmokeFailure(`cleanup: ${failed.join('; ')}`);
  }
  timings.push({ step: 'cleanup', ms, note: done.join(', ') });
  print(`✓ ${'cleanup'.padEnd(9)} ${String(ms).padStart(6)} ms  ${done.join(', ')}`);
}
