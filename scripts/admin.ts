/**
 * Platform-team command: `npm run --silent admin -- create-key --name "Alice" [--verified] [--operator]`
 * prints one JSON line {"user_id", "workspace_id", "api_key"}. The key is shown once; only its hash is stored.
 */
import { parseArgs } from 'node:util';
import { createUserWithKey } from '../lib/accounts/api-keys.ts';
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
  try {
    const issued = await createUserWithKey({ name, verified: parsed.values.verified, operator: parsed.values.operator });
    process.stdout.write(`${JSON.stringify(issued)}\n`);
  } catch (err) {
    const where = store.target === 'local' ? `DynamoDB Local at ${store.endpoint} (is \`npm start\` running?)` : `table ${store.tableName} in AWS`;
    fail(`Could not create the key in ${where}: ${(err as Error).name}: ${(err as Error).message}`);
  }
}

await main();
