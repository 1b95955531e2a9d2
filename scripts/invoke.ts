/**
 * `npm run invoke -- <function> <events/fixture.json>`: runs one handler with one event and prints
 * its result, like `sam local invoke`. <function> is a route name from lib/routes.ts or a worker
 * (authorizer, relay, deliver). It uses the store `npm start` runs (or TABLE_NAME in AWS).
 */
import { readFileSync } from 'node:fs';
import { routes, workers } from '../lib/routes.ts';
import { useStoreFromEnvironment } from '../local/config.ts';
import { loadHandler } from '../local/handlers.ts';
import { lambdaContext } from '../local/lambda-context.ts';
import { installAwsLambdaGlobal, isStreamingHandler } from '../local/streaming.ts';
import { Writable } from 'node:stream';

const [name, file] = process.argv.slice(2);
const names = [...routes.map((r) => r.name), ...Object.keys(workers)];
if (!name || !file || !names.includes(name)) {
  process.stderr.write(`usage: npm run invoke -- <function> <event.json>\nfunctions: ${names.join(', ')}\n`);
  process.exit(1);
}

useStoreFromEnvironment();
process.env['DEVELOPMENT_MODE'] ??= 'true';
installAwsLambdaGlobal();
const route = routes.find((r) => r.name === name);
const modulePath = route?.handler ?? workers[name as keyof typeof workers];
const event: unknown = JSON.parse(readFileSync(file, 'utf8'));
const handler = await loadHandler<(event: unknown, ...rest: unknown[]) => Promise<unknown>>(modulePath);
const context = lambdaContext(name, route?.timeoutSeconds ?? 10);

if (isStreamingHandler(handler)) {
  // Streamed responses are printed as they arrive; the stream ends when the handler does.
  const out = new Writable({ write: (chunk, _e, cb) => (process.stdout.write(chunk), cb()) });
  await handler(event, out, context);
} else {
  const result = await handler(event, context);
  process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
}
process.exit(0);
