/**
 * `npm run invoke -- <function> [events/fixture.json]`: runs one handler with one event and prints
 * its result, like `sam local invoke`. <function> is a route name from lib/routes.ts or a worker
 * (authorizer, relay, deliver, searchIndexer, trendRollover); the event defaults to
 * events/<function>.json, whose ids the demo seed of `npm start` makes. It uses the store
 * `npm start` runs (or TABLE_NAME in AWS).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { useStoreFromEnvironment } from '../local/config.ts';
import { functionNames, invokeFunction, localStoreProblem, usesQueue, usesTable } from '../local/invoke.ts';
import { repoRoot } from '../local/lambda/handlers.ts';
import { findRuntime } from '../local/runtime-file.ts';

const [name, file] = process.argv.slice(2);
if (!name || !functionNames.includes(name)) {
  process.stderr.write(`usage: npm run invoke -- <function> [event.json]\nfunctions: ${functionNames.join(', ')}\n`);
  process.exit(1);
}

const store = useStoreFromEnvironment();
process.env['DEVELOPMENT_MODE'] ??= 'true';
const refuse = (sentence: string): never => {
  process.stderr.write(`${sentence}\n`);
  process.exit(1);
};
if (store.target === 'local' && usesTable(name)) {
  const problem = await localStoreProblem(store.endpoint!, store.tableName);
  if (problem) refuse(problem);
}
if (store.target === 'local' && usesQueue(name)) {
  // The queue is fauxqs inside the running `npm start`, which says where it is.
  const runtime = findRuntime(store.endpoint!);
  if (!runtime)
    refuse(
      `${name} uses the delivery queue, and no npm start serving ${store.endpoint} publishes one: start the local runtime first (npm start).`,
    );
  process.env['SQS_ENDPOINT'] = runtime!.sqs_endpoint;
  process.env['DELIVERY_QUEUE_URL'] = runtime!.queue_url;
}
const event: unknown = JSON.parse(readFileSync(file ?? join(repoRoot, 'events', `${name}.json`), 'utf8'));
// Streamed answers are printed as they arrive; the stream ends when the handler does (or Ctrl-C).
const out = new Writable({
  write: (chunk, _e, cb) => {
    process.stdout.write(chunk);
    cb();
  },
});
const result = await invokeFunction(name, event, out);
if (result !== undefined) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
process.exit(0);
