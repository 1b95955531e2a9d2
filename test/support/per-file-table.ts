import { randomUUID } from 'node:crypto';
import { relative } from 'node:path';
import { DeleteTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, afterEach, beforeAll, expect, inject, type RunnerTask } from 'vitest';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { reindexIfBehind } from '../../lib/marketplace/search/reindex.ts';
import { ensureTable } from '../../lib/store/create-table.ts';
import { closeOpened } from './close-after-test.ts';
import { cpuSecondsOf } from './cpu-profile.ts';
import { snapshotEnvironment } from './environment-snapshot.ts';
import { removeScratchDirs } from './scratch-dir.ts';

/**
 * The integration tier's setup file: each test file gets a database and a fresh table of its own
 * on the run's DynamoDB Local (one JVM for the whole run and every worker,
 * test/support/worker-emulators.ts), created before the file's own hooks and deleted after them.
 * The database is the file's own access key id (the emulator runs without `-sharedDb`): no file
 * sees another's items or pays for another's stream records, though the files of every worker
 * share the JVM. Child processes the file spawns inherit the endpoint, the key id and the table name.
 */
const restoreEnvironment = snapshotEnvironment();
const table = `test-${randomUUID()}`;
process.env['TABLE_NAME'] = table;
// DynamoDB Local names a database by access key id and region: both are the file's, whatever the
// shell has (children given a fixed region, like the bundle's credential probe, must find it too).
// It takes letters and digits only in an access key id.
const accessKeyId = table.replace(/[^A-Za-z0-9]/g, '');
const region = 'us-east-1';
process.env['EMULATOR_ACCESS_KEY_ID'] = accessKeyId;
process.env['AWS_REGION'] = region;
process.env['LOG_LEVEL'] ??= 'silent';
// As `npm start` runs (local/start.ts): webhooks may be local receivers on 127.0.0.1. Set here, per
// file, not by a support module at import: a worker imports a module once for all its files, and
// the environment is put back after each. A test of production rules switches it off
// (test/agents/env.ts).
process.env['DEVELOPMENT_MODE'] = 'true';

let endpoint: string | undefined;
const leaseUrl = `${inject('dynamoLeaseUrl')}/${encodeURIComponent(process.env['VITEST_POOL_ID'] ?? '1')}/${process.pid}`;
/** What the file cost, for TEST_CPU_PROFILE (test/support/cpu-profile.ts): its name, wall and CPU at the start. */
let file = '';
const started = { wall: performance.now(), cpu: cpuSecondsOf(process.pid) };

beforeAll(async () => {
  file = relative(process.cwd(), expect.getState().testPath ?? '');
  const res = await fetch(leaseUrl, { method: 'POST' });
  const answer = await res.text();
  if (!res.ok) throw new Error(`No DynamoDB Local for this worker: ${answer}`);
  endpoint = answer;
  process.env['DYNAMODB_ENDPOINT'] = endpoint;
  await ensureTable(table);
  // As after a stage's first deploy and `admin reindex-search`: the new table's (empty) index has the current format.
  await reindexIfBehind();
}, 90_000);

// What a test opened through the support modules (receivers, servers), closed after it.
afterEach(closeOpened);

// Registered first, so it runs after the file's own afterAll hooks (pipelines, APIs) have stopped.
// Deleting the table frees its memory in the shared emulator for the files after this one.
// (Its own client, at the endpoint leased and with the file's database: a test may point the
// environment elsewhere.)
// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as its fixtures and refuses any other form; the suite comes second
afterAll(async ({}, suite) => {
  const timedOut = testsTimedOut(suite);
  if (timedOut.length > 0)
    console.warn(
      `${file}: ${timedOut.join('; ')} timed out. The worker runs its next file in this process (isolate: false), and what the test started may still be running there: read that file's failures with this in mind.`,
    );
  removeScratchDirs(); // the data folders of the runtimes the file started (stopped by its own afterAll)
  restoreEnvironment(); // the file's own variables and whatever its tests set: not the next file's
  if (!endpoint) return;
  const client = new DynamoDBClient({
    ...endpointOverride(endpoint),
    region,
    credentials: { accessKeyId, secretAccessKey: 'local' },
  });
  try {
    await client.send(new DeleteTableCommand({ TableName: table }));
  } finally {
    client.destroy();
    const cost = new URLSearchParams({
      file,
      wall: ((performance.now() - started.wall) / 1000).toFixed(1),
      node: (cpuSecondsOf(process.pid) - started.cpu).toFixed(1),
    });
    await fetch(`${leaseUrl}?${cost}`, { method: 'DELETE' });
  }
});

/** The names of the file's tests that failed by timing out. */
function testsTimedOut(task: Readonly<RunnerTask>): string[] {
  if (task.type === 'suite') return task.tasks.flatMap(testsTimedOut);
  return task.result?.errors?.some((error) => error.name === 'TestTimeoutError') ? [task.name] : [];
}
