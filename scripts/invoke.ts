/**
 * `npm run invoke -- <function> [events/fixture.json]`: runs one handler with one event and prints
 * its result, like `sam local invoke`. <function> is a route name from lib/routes.ts or a worker
 * (authorizer, relay, deliver, searchIndexer, trendRollover); the event defaults to its sample
 * (local/demo/sample-event.ts: a route's made from its row's example, another's events/<function>.json),
 * whose ids the demo seed of `npm start` makes. It uses the store `npm start` runs (or TABLE_NAME in AWS).
 */
import { readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { routes } from '../lib/routes.ts';
import { useStoreFromEnvironment } from '../local/config.ts';
import { sampleEvent } from '../local/demo/sample-event.ts';
import { localApiUrl } from '../local/gateway/api-gateway.ts';
import { functionNames, invokeFunction, usesConnections, usesQueue, usesTable } from '../local/invoke.ts';
import { OPENAPI_HANDLER, writeOpenApiDocument } from '../local/openapi-document.ts';
import { findRuntime } from '../local/runtime-file.ts';
import { localStoreProblem } from '../local/store-probe.ts';

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
  // The queue is fauxqs inside the running `npm start`, which says where it is: in its DATA_DIR lock, or
  // (DATA_DIR=:memory:) in the file it publishes per DynamoDB endpoint.
  const recorded = store.runtime;
  const runtime =
    recorded?.sqs_endpoint && recorded.queue_url
      ? { sqs_endpoint: recorded.sqs_endpoint, queue_url: recorded.queue_url }
      : findRuntime(store.endpoint!);
  if (!runtime)
    refuse(
      `${name} uses the delivery queue, and no npm start serving ${store.endpoint} publishes one: start the local runtime first (npm start).`,
    );
  process.env['SQS_ENDPOINT'] = runtime!.sqs_endpoint;
  process.env['DELIVERY_QUEUE_URL'] = runtime!.queue_url;
}
if (store.target === 'local' && usesConnections(name) && !process.env['PUSH_CONNECTIONS_ENDPOINT']) {
  // The push channel's frames go to the running `npm start`'s @connections (its API's own port), as a
  // deployed function's go to its stage's: a sync of a connection it does not hold posts there and gets 410.
  const recorded = store.runtime;
  const endpoint = recorded
    ? localApiUrl(recorded.host, recorded.port)
    : findRuntime(store.endpoint!)?.connections_endpoint;
  if (!endpoint)
    refuse(
      `${name} posts to the push channel's connections, and no npm start serving ${store.endpoint} publishes its API: start the local runtime first (npm start).`,
    );
  process.env['PUSH_CONNECTIONS_ENDPOINT'] = endpoint!;
}
// The document GET /openapi.json serves is a build artifact: made now, as the route table has it.
if (routes.find((r) => r.name === name)?.handler === OPENAPI_HANDLER) await writeOpenApiDocument();
const event: unknown = file ? JSON.parse(readFileSync(file, 'utf8')) : sampleEvent(name);
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
