/**
 * The platform team's commands (docs/operations.md, "API keys and admin commands"), run by ./admin.ts:
 *   create-key --name NAME [--verified] [--operator]   one JSON line {"user_id", "workspace_id", "key_id", "api_key"}; the key is shown once
 *   list-keys [--user USER_ID]                         one JSON line per key (never the key or its hash)
 *   revoke-key <USER_ID | KEY_ID>                      revokes one key, or every key of a user, and ends its portal links, push
 *                                                      connections and usage plan entry; one JSON line per revoked key
 *   redrive <delivery | DLQ_URL> [--to QUEUE_URL]      moves a dead-letter queue's messages back; prints {"moved", "failed"}
 *   reindex-search                                     syncs every public template's search index now (after an index format change); prints {"templates"}
 * The table is TABLE_NAME in AWS (credentials from the usual chain) or `npm start`'s DynamoDB Local.
 * Against a deployed stage create-key and revoke-key also need USAGE_PLAN_ID (the stack's UsagePlanId
 * output): create-key puts the key's API Gateway API key in that usage plan first, revoke-key takes it
 * out and deletes it; revoke-key needs PUSH_CONNECTIONS_ENDPOINT too (PushConnectionsEndpoint output).
 * `--stage STAGE` (any command) reads TABLE_NAME, USAGE_PLAN_ID, PUSH_CONNECTIONS_ENDPOINT and the
 * delivery queues' URLs from that stage's stack outputs (./stack-outputs.ts), so AWS credentials are
 * all a command needs.
 */

import { parseArgs } from 'node:util';
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { createUserWithKey, type IssuedKey } from '../lib/accounts/api-keys.ts';
import { registerWithUsagePlan, removeFromUsagePlan } from '../lib/accounts/gateway-keys.ts';
import { listKeys, type RevokedKey, revokeKey, revokeUserKeys } from '../lib/accounts/key-lifecycle.ts';
import { sqs } from '../lib/events/delivery/queue.ts';
import { closeFromServer } from '../lib/events/push/channel.ts';
import { reindexSearch } from '../lib/marketplace/search/reindex.ts';
import { redrive } from '../lib/ops/redrive.ts';
import { endRevokedKey, type RevocationReach } from '../lib/ops/revoke-key.ts';
import { type StoreTarget, useStoreFromEnvironment } from '../local/config.ts';
import { localApiUrl } from '../local/gateway/api-gateway.ts';
import { localStoreProblem } from '../local/store-probe.ts';
import { awsAccessFromEnvironment, stageVariables } from './stack-outputs.ts';

const USAGE = [
  'usage: npm run --silent admin -- create-key --name NAME [--verified] [--operator]',
  '       npm run --silent admin -- list-keys [--user USER_ID]',
  '       npm run --silent admin -- revoke-key <USER_ID | KEY_ID>',
  '       npm run --silent admin -- redrive <delivery | DLQ_URL> [--to QUEUE_URL]',
  '       npm run --silent admin -- reindex-search',
  'each takes --stage STAGE: a deployed stage, its settings read from its stacks (AWS credentials needed)',
].join('\n');

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const KEY_ID = /^key_[0-9a-f]{20}$/;

/** What ends a command with exit 1: its message goes to stderr. */
class AdminFailure extends Error {}

function fail(message: string): never {
  throw new AdminFailure(message);
}

/** Where a command writes: one JSON line per value on stdout, a failure's message on stderr. */
export interface AdminOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

/** Writes one value as a JSON line on the command's stdout. */
type Print = (value: unknown) => void;

function parse(args: string[]) {
  try {
    return parseArgs({
      args,
      allowPositionals: true,
      options: {
        name: { type: 'string' },
        verified: { type: 'boolean', default: false },
        operator: { type: 'boolean', default: false },
        user: { type: 'string' },
        to: { type: 'string' },
        stage: { type: 'string' },
      },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`);
  }
}

async function createKey(
  print: Print,
  values: ReturnType<typeof parse>['values'],
  register?: (issued: IssuedKey) => Promise<void>,
): Promise<void> {
  const name = values.name?.trim();
  if (!name || name.length > 100) fail(`--name is required (1–100 characters).\n${USAGE}`);
  print(await createUserWithKey({ name, verified: values.verified, operator: values.operator }, register));
}

/** Marks the key (or each key of the user) revoked, then ends what it holds: push connections, usage plan entry. */
async function revoke(print: Print, target: string | undefined, reach: RevocationReach): Promise<void> {
  let revoked: RevokedKey[];
  if (target && KEY_ID.test(target)) {
    const one = await revokeKey(target);
    if (!one) fail(`No key ${target}.`);
    revoked = [one];
  } else if (target && UUID.test(target)) {
    const all = await revokeUserKeys(target);
    if (!all) fail(`No user ${target}.`);
    revoked = all;
  } else {
    fail(`revoke-key takes a user id (uuid) or a key id (key_…).\n${USAGE}`);
  }
  for (const key of revoked) print(await endRevokedKey(key, reach));
}

/**
 * Where revoke-key closes the key's push connections: PUSH_CONNECTIONS_ENDPOINT (a deployed stage's
 * `PushConnectionsEndpoint` output, required there), else the `npm start` on DATA_DIR, whose API
 * serves its @connections stand-in.
 */
function usePushConnections(store: StoreTarget): void {
  if (process.env['PUSH_CONNECTIONS_ENDPOINT']) return;
  if (store.target === 'aws')
    fail(
      'PUSH_CONNECTIONS_ENDPOINT is required for a deployed stage: use the PushConnectionsEndpoint output of `cdk deploy`.',
    );
  if (store.runtime) process.env['PUSH_CONNECTIONS_ENDPOINT'] = localApiUrl(store.runtime.host, store.runtime.port);
}

/** `delivery` names the delivery DLQ and queue from the stack outputs (DELIVERY_DLQ_URL, DELIVERY_QUEUE_URL). */
async function redriveQueue(print: Print, from: string | undefined, to: string | undefined): Promise<void> {
  const named = from === 'delivery';
  // Without DELIVERY_DLQ_URL, the `npm start` running on DATA_DIR names its queues (and its SQS emulator).
  const local = named && !process.env['DELIVERY_DLQ_URL'] ? useStoreFromEnvironment().runtime : undefined;
  if (local?.sqs_endpoint) process.env['SQS_ENDPOINT'] ??= local.sqs_endpoint;
  const fromUrl = named ? (process.env['DELIVERY_DLQ_URL'] ?? local?.dlq_url) : from;
  const toUrl = to ?? (named ? (process.env['DELIVERY_QUEUE_URL'] ?? local?.queue_url) : undefined);
  if (!fromUrl || !/^https?:\/\//.test(fromUrl))
    fail(`redrive needs a DLQ: "delivery" (with DELIVERY_DLQ_URL set) or its URL.\n${USAGE}`);
  if (!toUrl || !/^https?:\/\//.test(toUrl))
    fail(`redrive needs the queue to move to: --to QUEUE_URL (or DELIVERY_QUEUE_URL for "delivery").\n${USAGE}`);
  print(await redrive(sqs(), fromUrl, toUrl));
}

/** `--stage`: the stage's settings from its stacks' outputs, into the environment the commands read. */
async function useStage(stage: string): Promise<void> {
  if (process.env['DYNAMODB_ENDPOINT'])
    fail('--stage names a deployed stage: unset DYNAMODB_ENDPOINT (it points the commands at a local DynamoDB).');
  try {
    Object.assign(process.env, await stageVariables(stage, await awsAccessFromEnvironment()));
  } catch (err) {
    fail(`--stage ${stage}: ${(err as Error).message}`);
  }
}

async function command(print: Print, args: string[]): Promise<void> {
  const { values, positionals } = parse(args);
  if (values.stage !== undefined) await useStage(values.stage);
  const [command, target, ...rest] = positionals;
  if (rest.length) fail(USAGE);
  if (command === 'redrive') return redriveQueue(print, target, values.to);
  if (!['create-key', 'list-keys', 'revoke-key', 'reindex-search'].includes(command ?? '')) fail(USAGE);
  if (command === 'reindex-search' && target) fail(USAGE);
  const store = useStoreFromEnvironment();
  if (store.target === 'local') {
    const problem = await localStoreProblem(store.endpoint!, store.tableName);
    if (problem) fail(problem);
  }
  const usagePlanId = process.env['USAGE_PLAN_ID'];
  // The local runtime limits keys itself (local/gateway/key-throttle.ts); in AWS the stage's usage plan
  // does, and a key made or revoked there is added to it or taken out of it.
  const keyCommand = command === 'create-key' || command === 'revoke-key';
  if (store.target === 'aws' && keyCommand && !usagePlanId)
    fail('USAGE_PLAN_ID is required for a deployed stage: use the UsagePlanId output of `cdk deploy`.');
  if (command === 'revoke-key') usePushConnections(store);
  const gateway = usagePlanId && keyCommand ? new APIGatewayClient({}) : undefined;
  const register = gateway && ((issued: IssuedKey) => registerWithUsagePlan(gateway, usagePlanId!, issued));
  const reach: RevocationReach = {
    closeConnection: closeFromServer,
    ...(gateway ? { removeFromUsagePlan: (key) => removeFromUsagePlan(gateway, usagePlanId!, key) } : {}),
  };
  try {
    if (command === 'create-key') await createKey(print, values, register);
    else if (command === 'reindex-search') print(await reindexSearch());
    else if (command === 'list-keys')
      for await (const key of listKeys(values.user ? { userId: values.user } : {})) print(key);
    else await revoke(print, target, reach);
  } catch (err) {
    if (err instanceof AdminFailure) throw err;
    const where =
      store.target === 'local'
        ? `DynamoDB Local at ${store.endpoint} (is \`npm start\` running?)`
        : `table ${store.tableName}${keyCommand ? ` and usage plan ${usagePlanId}` : ''} in AWS`;
    fail(`${command} failed against ${where}: ${(err as Error).name}: ${(err as Error).message}`);
  }
}

/** Runs one admin command (the words after `npm run admin --`); resolves to its exit code. */
export async function runAdmin(args: string[], to: AdminOutput): Promise<number> {
  try {
    await command((value) => to.stdout(`${JSON.stringify(value)}\n`), args);
    return 0;
  } catch (err) {
    if (!(err instanceof AdminFailure)) throw err;
    to.stderr(`${err.message}\n`);
    return 1;
  }
}
