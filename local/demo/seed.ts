/**
 * The demo data of `npm start`, made once through the real handlers (a restart on the same
 * DATA_DIR finds it and leaves it alone): the demo user and key, a second demo user and key, the
 * demo catalog (one template by the second user, so the demo user has one to review) with installs
 * and reviews from a few reviewer accounts (./activity.ts), four agents (one for the deleteAgent sample) and their webhooks, and one
 * contract in each state a contract sample starts from. Ids come from local/demo/identity.ts, which the
 * sample events name.
 */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createUserWithKey, findCallerByApiKey } from '../../lib/accounts/api-keys.ts';
import type { Caller } from '../../lib/core/caller.ts';
import { EVENT_TYPES } from '../../lib/core/event-types.ts';
import { withPinnedIds } from '../../lib/core/ids.ts';
import { DESTINATIONS } from '../../lib/core/settings.ts';
import { insertDestination, readDestination } from '../../lib/destinations/store.ts';
import { codeHash } from '../../lib/destinations/verification-code.ts';
import { getPortalLink, putPortalLink } from '../../lib/portal/store.ts';
import { newPortalToken, PORTAL_LINK_MAX_SECONDS } from '../../lib/portal/token.ts';
import { routes } from '../../lib/routes.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { newWebhookSecret } from '../../lib/webhooks/secret.ts';
import { invokeRoute, proxyEvent } from '../gateway/proxy-event.ts';
import { seedDemoActivity } from './activity.ts';
import {
  DEMO_API_KEY,
  DEMO_CALLER,
  DEMO_DESTINATION,
  DEMO_IDS,
  DEMO_SECOND_API_KEY,
  DEMO_WEBHOOK,
} from './identity.ts';
import { COMMUNITY_TEMPLATE_SLUG, demoSecondVersion, demoTemplates } from './templates.ts';

/** Calls a route through its real handler, as API Gateway would after the authorizer. */
async function callRoute(name: string, caller: Caller, init: { params?: Record<string, string>; body?: unknown } = {}) {
  const route = routes.find((r) => r.name === name)!;
  const event = proxyEvent({
    route,
    caller,
    pathParameters: init.params ?? null,
    headers: init.body ? { 'content-type': 'application/json' } : {},
    body: init.body ? JSON.stringify(init.body) : null,
  });
  const answer = await invokeRoute(route, event);
  return { status: answer.statusCode, body: answer.body ? (JSON.parse(answer.body) as Record<string, unknown>) : {} };
}

/** Makes something once: `exists` is asked first; `make` must answer 2xx, with the pinned id if one is given. */
async function once(
  what: string,
  exists: () => Promise<boolean>,
  make: () => Promise<{ status: number; body: Record<string, unknown> }>,
  pinnedId?: string,
): Promise<void> {
  if (await exists()) return;
  const made = pinnedId ? await withPinnedIds([pinnedId], make) : await make();
  if (made.status >= 300) throw new Error(`seeding ${what} failed: ${made.status} ${JSON.stringify(made.body)}`);
  if (pinnedId && made.body['id'] !== pinnedId)
    throw new Error(`seeding ${what} made ${String(made.body['id'])}, not ${pinnedId}`);
}

/** The demo user with its fixed ids and key. */
async function demoUser(): Promise<Caller> {
  const found = await findCallerByApiKey(DEMO_API_KEY);
  if (found) return found;
  await withPinnedIds([DEMO_CALLER.userId, DEMO_CALLER.workspaceId], () =>
    createUserWithKey(DEMO_CALLER, undefined, DEMO_API_KEY),
  );
  return (await findCallerByApiKey(DEMO_API_KEY))!;
}

/** The second demo user, with its fixed key (its ids are of no sample's concern). */
async function secondUser(): Promise<Caller> {
  const found = await findCallerByApiKey(DEMO_SECOND_API_KEY);
  if (found) return found;
  await createUserWithKey({ name: 'Demo Community Author' }, undefined, DEMO_SECOND_API_KEY);
  return (await findCallerByApiKey(DEMO_SECOND_API_KEY))!;
}

/**
 * Gives an agent this webhook unless it has it (a restart's sink has a new port), and verifies it
 * if asked. A handshake counts against the agent's verify limit, so only a change is verified.
 */
async function pointWebhook(
  demo: Caller,
  id: string,
  webhook: { webhook_url: string; events: readonly string[] },
  verify: boolean,
): Promise<void> {
  const agent = await callRoute('getAgent', demo, { params: { id } });
  if (agent.body['webhook_url'] === webhook.webhook_url && (!verify || agent.body['webhook_status'] === 'ENABLED'))
    return;
  await once(
    `the webhook of ${id}`,
    async () => false,
    () => callRoute('configureWebhook', demo, { params: { id }, body: webhook }),
  );
  if (!verify) return;
  // Not fatal: a restart within the verify limit's minute is refused a handshake; the agent then
  // stays PENDING and its events stay in the feed, undelivered.
  const verified = await callRoute('verifyWebhook', demo, { params: { id } });
  if (verified.status !== 200)
    process.stderr.write(
      `The demo webhook of ${id} is not verified (${verified.status} ${JSON.stringify(verified.body)}).\n`,
    );
}

/**
 * `webhookSink`: the demo webhook endpoint (local/demo/webhook-sink.ts), in development mode only;
 * without it the agents get no webhook (a production-rules start allows no localhost URL).
 * `onCatalog` is called once the templates, their installs and reviews are made (search indexes them
 * from there while the agents and contracts are made).
 */
export async function seedDemoData(
  options: { webhookSink?: string | undefined; onCatalog?: () => void } = {},
): Promise<{ apiKey: string; secondApiKey: string }> {
  const demo = await demoUser();
  const second = await secondUser();
  const templateExists = (slug: string) => async () =>
    (await callRoute('getTemplate', demo, { params: { id: slug } })).status === 200;
  for (const template of demoTemplates) {
    const pinned = template.slug === 'http-uptime-check' ? DEMO_IDS.uptimeTemplate : undefined;
    const author = template.slug === COMMUNITY_TEMPLATE_SLUG ? second : demo;
    await once(
      template.slug,
      templateExists(template.slug),
      () => callRoute('publishTemplate', author, { body: template }),
      pinned,
    );
  }
  await seedDemoActivity(callRoute, demo, second);
  options.onCatalog?.();

  const { slug, body, installed } = demoSecondVersion;
  const hasVersion = async () =>
    ((await callRoute('getTemplate', demo, { params: { id: slug } })).body['versions'] as { version: string }[]).some(
      (v) => v.version === body.version,
    );
  await once(`${slug} ${body.version}`, hasVersion, () =>
    callRoute('publishVersion', demo, { params: { id: slug }, body }),
  );
  const isInstalled = async () => JSON.stringify((await callRoute('listInstalled', demo)).body).includes(`"${slug}"`);
  await once(`the install of ${slug}`, isInstalled, () =>
    callRoute('installTemplate', demo, { params: { id: slug }, body: installed }),
  );

  const agentExists = (id: string) => async () =>
    (await callRoute('getAgent', demo, { params: { id } })).status === 200;
  const agents: Array<[string, string]> = [
    [DEMO_IDS.webhookAgent, 'Demo webhook agent'],
    [DEMO_IDS.configAgent, 'Demo agent to configure'],
    [DEMO_IDS.buyerAgent, 'Demo buyer agent'],
  ];
  for (const [id, name] of agents)
    await once(name, agentExists(id), () => callRoute('createAgent', demo, { body: { name } }), id);
  // Once the deleteAgent sample has run, its agent stays deleted: a restart does not make it again.
  const agentItemExists = async () =>
    (await db().send(new GetCommand({ TableName: tableName(), Key: keys.agent(DEMO_IDS.agentToDelete) }))).Item !==
    undefined;
  await once(
    'Demo agent to delete',
    agentItemExists,
    () => callRoute('createAgent', demo, { body: { name: 'Demo agent to delete' } }),
    DEMO_IDS.agentToDelete,
  );
  // The webhook agent signs with ed25519 too (`v1a`), so its keyless JWKS has a key to show.
  const hasSigningKey = async () =>
    (await callRoute('getWebhookPublicKeys', demo, { params: { id: DEMO_IDS.webhookAgent } })).body['v1a'] === true;
  if (!(await hasSigningKey()))
    await callRoute('rotateWebhookSigningKey', demo, { params: { id: DEMO_IDS.webhookAgent } });
  await seedPortalLink();
  if (options.webhookSink) {
    await pointWebhook(demo, DEMO_IDS.configAgent, DEMO_WEBHOOK, false);
    await pointWebhook(
      demo,
      DEMO_IDS.webhookAgent,
      { webhook_url: options.webhookSink, events: [...EVENT_TYPES] },
      false,
    );
    // Verified before the contracts move, so their events are delivered to the sink (a delivery to retry).
    await pointWebhook(demo, DEMO_IDS.buyerAgent, { webhook_url: options.webhookSink, events: [...EVENT_TYPES] }, true);
  }

  await demoDestinations(demo);

  const contract = {
    template_id: DEMO_IDS.uptimeTemplate,
    variables: { url: 'https://example.com/health' },
    amount_cents: 50000,
    agent_id: DEMO_IDS.buyerAgent,
  };
  for (const [state, id] of Object.entries(DEMO_IDS.contracts)) {
    const exists = async () => (await callRoute('getContract', demo, { params: { id } })).status === 200;
    if (await exists()) continue;
    await once(
      `the ${state} contract`,
      async () => false,
      () => callRoute('createContract', demo, { body: contract }),
      id,
    );
    if (state !== 'created')
      await once(
        `funding the ${state} contract`,
        async () => false,
        () => callRoute('fundContract', demo, { params: { id } }),
      );
  }
  return { apiKey: DEMO_API_KEY, secondApiKey: DEMO_SECOND_API_KEY };
}

/** The link the revokePortalLink sample revokes: written directly, as its id is pinned and its token never used. */
async function seedPortalLink(): Promise<void> {
  if (await getPortalLink(DEMO_IDS.portalLink)) return;
  const now = Date.now();
  await putPortalLink({
    link_id: DEMO_IDS.portalLink,
    token_hash: newPortalToken().hash,
    agent_id: DEMO_IDS.webhookAgent,
    owner_id: DEMO_CALLER.userId,
    workspace_id: DEMO_CALLER.workspaceId,
    created_at: new Date(now).toISOString(),
    link_expires_at: new Date(now + PORTAL_LINK_MAX_SECONDS * 1000).toISOString(),
    usage_key: DEMO_CALLER.usageKey!,
  });
}

/**
 * Two AWS destinations of the webhook agent: one to delete, made through the route, and one the
 * samples read and verify. No verification message can reach a local queue before the runtime
 * runs, so that one is stored as if its message had carried DEMO_DESTINATION.code.
 */
async function demoDestinations(demo: Caller): Promise<void> {
  const agentId = DEMO_IDS.webhookAgent;
  const exists = (id: string) => async () => (await readDestination(agentId, id)) !== undefined;
  await once(
    'the demo destination to delete',
    exists(DEMO_IDS.destinationToDelete),
    () =>
      callRoute('createDestination', demo, {
        params: { id: agentId },
        body: { arn: DEMO_DESTINATION.arn, events: ['contract.funded'] },
      }),
    DEMO_IDS.destinationToDelete,
  );
  if (await exists(DEMO_IDS.destination)()) return;
  const now = new Date();
  const inserted = await insertDestination(
    {
      id: DEMO_IDS.destination,
      agent_id: agentId,
      owner_id: demo.userId,
      kind: 'sqs',
      arn: DEMO_DESTINATION.arn,
      events: ['contract.funded', 'contract.released'],
      status: 'PENDING_VERIFICATION',
      status_reason: null,
      signing_secret: newWebhookSecret(),
      code_hash: codeHash(DEMO_DESTINATION.code),
      code_expires_at: now.getTime() + 10 * 365 * 86_400_000,
      wrong_codes: 0,
      verification_sent_at: now.toISOString(),
      verification_error: null,
      verified_at: null,
      created_at: now.toISOString(),
      updated_at: now.toISOString(),
    },
    DESTINATIONS.maxPerAgent,
  );
  if (inserted !== 'created') throw new Error(`seeding the demo destination failed: ${inserted}`);
}
