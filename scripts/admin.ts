/**
 * Platform-team command: `npm run --silent admin -- create-key --name "Alice" [--verified] [--operator]`
 * prints one JSON line {"user_id", "workspace_id", "api_key"}. The key is shown once; only its hash is stored.
 * Against a deployed stage (TABLE_NAME without DYNAMODB_ENDPOINT) it also needs USAGE_PLAN_ID (the
 * stack's UsagePlanId output): the key gets its API Gateway API key in that usage plan first.
 */
import { APIGatewayClient } from '@aws-sdk/client-api-gateway';
import { parseArgs } from 'node:util';
import { createUserWithKey, type IssuedKey } from '../lib/accounts/api-keys.ts';
import { registerWithUsagePlan } from '../lib/accounts/gateway-keys.ts';
import { useStoreFromEnvironment } from '../local/config.ts';

const USAGE = 'usage: npm run --silent admin -- create-key --name NAME [--verified] [--operator]';

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { name: { type: 'string' }, verified: { type: 'boolean', default: false }, operator: { type: 'boolean', default: false } },
    });
  } catch (err) {
    fail(`${(err as Error).message}\n${USAGE}`);
  }
  const [command] = parsed.positionals;
  if (command !== 'create-key') fail(USAGE);
  const name = parsed.values.name?.trim();
  if (!name || name.length > 100) fail(`--name is required (1–100 characters).\n${USAGE}`);

  const store = useStoreFromEnvironment();
  const usagePlanId = process.env['USAGE_PLAN_ID'];
  // The local runtime limits keys itself (local/key-throttle.ts); in AWS the stage's usage plan does.
  let register: ((issued: IssuedKey) => Promise<void>) | undefined;
  if (store.target === 'aws') {
    if (!usagePlanId) fail('USAGE_PLAN_ID is required for a deployed stage: use the UsagePlanId output of `cdk deploy`.');
    const gateway = new APIGatewayClient({});
    register = (issued) => registerWithUsagePlan(gateway, usagePlanId, issued);
  }
  try {
    const issued = await createUserWithKey({ name, verified: parsed.values.verified, operator: parsed.values.operator }, register);
    process.stdout.write(`${JSON.stringify(issued)}\n`);
  } catch (err) {
    const where = store.target === 'local' ? `DynamoDB Local at ${store.endpoint} (is \`npm start\` running?)` : `table ${store.tableName} and usage plan ${usagePlanId} in AWS`;
    fail(`Could not create the key in ${where}: ${(err as Error).name}: ${(err as Error).message}`);
  }
}

await main();
