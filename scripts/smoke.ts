/**
 * `npm run smoke -- --url <base URL> --key <API key> [--push-url wss://…]
 *   [--receiver-url https://… --receiver-port 8080 | --feed]`, or `--stage <stage>` instead of the
 * URLs (read from its stack outputs; AWS credentials needed): drives one stage end to end through
 * the client library and prints each step with its time (docs/deployment.md, "Smoke test of a
 * stage"). Exit 0 when every step passed, 1 with the reason.
 */
import { parseArgs } from 'node:util';
import { describeError, SmokeFailure } from './smoke/failure.ts';
import { runSmoke } from './smoke/run.ts';
import { awsAccessFromEnvironment, SMOKE_OUTPUTS, stageOutputs } from './stack-outputs.ts';

const USAGE =
  'usage: npm run smoke -- (--stage <stage> | --url <base URL> [--push-url <PushUrl output>]) --key <API key> ' +
  '[--receiver-url <public URL to this machine> --receiver-port <port> | --feed] [--step-timeout <seconds>]';

async function urlsOfStage(stage: string) {
  try {
    return await stageOutputs(stage, SMOKE_OUTPUTS, await awsAccessFromEnvironment());
  } catch (err) {
    throw new SmokeFailure(`--stage ${stage}: ${(err as Error).message}`);
  }
}

async function options() {
  const { values } = parseArgs({
    options: {
      stage: { type: 'string' },
      url: { type: 'string' },
      key: { type: 'string' },
      'push-url': { type: 'string' },
      'receiver-url': { type: 'string' },
      'receiver-port': { type: 'string' },
      feed: { type: 'boolean', default: false },
      'step-timeout': { type: 'string', default: '60' },
    },
  });
  const { key, stage } = values;
  if (!key) throw new SmokeFailure(`--key is required.\n${USAGE}`);
  // --stage: the API's and the push channel's URLs from the stage's API stack (--url, --push-url win).
  const fromStage = stage ? await urlsOfStage(stage) : undefined;
  const url = values.url ?? fromStage?.url;
  if (!url || !/^https?:\/\//.test(url))
    throw new SmokeFailure(`--url (or --stage) must give the stage's http(s) base URL.\n${USAGE}`);
  const port = values['receiver-port'] === undefined ? undefined : Number(values['receiver-port']);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65536))
    throw new SmokeFailure(`--receiver-port must be a port number.\n${USAGE}`);
  const seconds = Number(values['step-timeout']);
  if (!(seconds > 0)) throw new SmokeFailure(`--step-timeout must be a number of seconds.\n${USAGE}`);
  return {
    url,
    key,
    pushUrl: values['push-url'] ?? fromStage?.pushUrl,
    receiverUrl: values['receiver-url'],
    receiverPort: port,
    feedOnly: values.feed,
    stepTimeoutMs: seconds * 1000,
    print: (line: string) => process.stdout.write(`${line}\n`),
  };
}

const started = performance.now();
try {
  const chosen = await options();
  process.stdout.write(`Smoke run against ${chosen.url}\n`);
  const timings = await runSmoke(chosen);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  process.stdout.write(`smoke passed: ${timings.length} steps in ${seconds} s\n`);
} catch (err) {
  process.stderr.write(`smoke failed: ${err instanceof SmokeFailure ? err.message : describeError(err)}\n`);
  process.exitCode = 1;
}
