/**
 * `npm run smoke -- --url <base URL> --key <API key> [--push-url wss://…] [--receiver-url https://… --receiver-port 8080 | --feed]`:
 * drives one stage end to end through the client library and prints each step with its time
 * (docs/deployment.md, "Smoke test of a stage"). Exit 0 when every step passed, 1 with the reason.
 */
import { parseArgs } from 'node:util';
import { describeError, runSmoke, SmokeFailure } from './smoke/run.ts';

const USAGE =
  'usage: npm run smoke -- --url <base URL> --key <API key> [--push-url <PushUrl output>] ' +
  '[--receiver-url <public URL to this machine> --receiver-port <port> | --feed] [--step-timeout <seconds>]';

function options() {
  const { values } = parseArgs({
    options: {
      url: { type: 'string' },
      key: { type: 'string' },
      'push-url': { type: 'string' },
      'receiver-url': { type: 'string' },
      'receiver-port': { type: 'string' },
      feed: { type: 'boolean', default: false },
      'step-timeout': { type: 'string', default: '60' },
    },
  });
  const { url, key } = values;
  if (!url || !/^https?:\/\//.test(url))
    throw new SmokeFailure(`--url must be the stage's http(s) base URL.\n${USAGE}`);
  if (!key) throw new SmokeFailure(`--key is required.\n${USAGE}`);
  const port = values['receiver-port'] === undefined ? undefined : Number(values['receiver-port']);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw new SmokeFailure(`--receiver-port must be a port number.\n${USAGE}`);
  const seconds = Number(values['step-timeout']);
  if (!(seconds > 0)) throw new SmokeFailure(`--step-timeout must be a number of seconds.\n${USAGE}`);
  return {
    url,
    key,
    pushUrl: values['push-url'],
    receiverUrl: values['receiver-url'],
    receiverPort: port,
    feedOnly: values.feed,
    stepTimeoutMs: seconds * 1000,
    print: (line: string) => process.stdout.write(`${line}\n`),
  };
}

const started = performance.now();
try {
  const chosen = options();
  process.stdout.write(`Smoke run against ${chosen.url}\n`);
  const timings = await runSmoke(chosen);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`smoke passed: ${timings.length} steps in ${seconds} s\n`);
} catch (err) {
  process.stderr.write(`smoke failed: ${err instanceof SmokeFailure ? err.message : describeError(err)}\n`);
  process.exitCode = 1;
}
