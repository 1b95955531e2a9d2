import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { tableName } from '../lib/store/client.ts';
import { startLocalSqs } from '../local/sqs.ts';
import { allFunctions, BUNDLE_BUDGET_BYTES, BUNDLE_INPUTS, bundleFunction } from './bundle.ts';

const exec = promisify(execFile);
let dir: string;
const bundles = new Map<string, { bytes: number; mapFile: string; file: string; inputs: string[] }>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-size-'));
  for (const fn of allFunctions()) {
    const out = join(dir, fn.name);
    mkdirSync(out);
    bundles.set(fn.name, await bundleFunction(fn.entry, out));
  }
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('function bundles (as cdk synth builds them)', () => {
  it(`each weighs at most ${BUNDLE_BUDGET_BYTES / 1024} KB minified`, () => {
    const over = [...bundles].filter(([, b]) => b.bytes > BUNDLE_BUDGET_BYTES).map(([name, b]) => `${name}: ${(b.bytes / 1024).toFixed(1)} KB`);
    expect(over).toEqual([]);
    expect(bundles.size).toBe(allFunctions().length);
  });

  it('are built only from what their asset hash covers (BUNDLE_INPUTS and installed packages), so synth may reuse one', () => {
    const root = join(import.meta.dirname, '..');
    const covered = (path: string) => {
      const rel = relative(root, path);
      return rel.split(sep)[0] === 'node_modules' || BUNDLE_INPUTS.some((input) => rel === input || rel.startsWith(`${input}${sep}`));
    };
    const outside = [...bundles].flatMap(([name, b]) => b.inputs.filter((p) => !covered(p)).map((p) => `${name}: ${relative(root, p)}`));
    expect(outside).toEqual([]);
    expect([...bundles.values()].every((b) => b.inputs.length > 0)).toBe(true);
  });

  it('ship source maps that name the sources but hold no copy of them', () => {
    for (const [name, b] of bundles) {
      const map = JSON.parse(readFileSync(b.mapFile, 'utf8')) as { sources: string[]; sourcesContent?: unknown[] };
      expect(map.sources.length, name).toBeGreaterThan(0);
      expect(map.sourcesContent ?? [], name).toEqual([]);
    }
  });

  it('take AWS credentials from the Lambda environment only, and still talk to DynamoDB and SQS', async () => {
    const out = join(dir, '_probe');
    mkdirSync(out);
    const { file } = await bundleFunction('infra/fixtures/credentials-probe.ts', out);
    const sqs = await startLocalSqs({});
    try {
      const { QueueUrl } = await sqs.client.send(new CreateQueueCommand({ QueueName: `probe-${Date.now()}` }));
      const script = `const m = await import(process.argv[1]);
        const [endpoint, table, queue, sqs] = process.argv.slice(2);
        process.stdout.write(JSON.stringify({ credentials: await m.credentials(), trip: await m.roundTrip(endpoint, table, queue, sqs) }));`;
      const { stdout } = await exec(process.execPath, ['--input-type=module', '-e', script, file, process.env['DYNAMODB_ENDPOINT']!, tableName(), QueueUrl!, sqs.endpoint], {
        env: { PATH: process.env['PATH'] ?? '', AWS_REGION: 'us-east-1', AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE', AWS_SECRET_ACCESS_KEY: 'secret-example', AWS_SESSION_TOKEN: 'token-example' },
      });
      const result = JSON.parse(stdout) as { credentials: Record<string, string>; trip: { item: unknown; queueArn: string } };
      expect(result.credentials).toMatchObject({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret-example', sessionToken: 'token-example' });
      expect(result.trip.item).toEqual({ PK: 'PROBE#bundle', SK: 'PROBE', nested: { list: [1, 'two'] } });
      expect(result.trip.queueArn).toMatch(/^arn:aws:sqs:/);
    } finally {
      await sqs.stop();
    }
    // The web identity, SSO and container providers and the event-stream codec are not in the bundle.
    const code = readFileSync(file, 'utf8');
    for (const left of ['AWS_WEB_IDENTITY_TOKEN_FILE', 'sso_start_url', 'AWS_CONTAINER_CREDENTIALS_FULL_URI', ':event-type']) expect(code, left).not.toContain(left);
  });
});
