import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { routeDocs } from '../lib/route-docs.ts';
import { routes } from '../lib/routes.ts';
import { tableName } from '../lib/store/client.ts';
import { startLocalSqs } from '../local/emulators/sqs.ts';
import { mapStackTrace, readSourceMap } from '../scripts/map-stack-trace.ts';
import {
  AUTHORIZER_OVER_FLOOR_BYTES,
  allFunctions,
  BUNDLE_INPUTS,
  BUNDLE_OVER_FLOOR_BYTES,
  bundleAllFunctions,
  bundleFloor,
  bundleFunction,
  DEPLOYED_SOURCE_MAPS,
} from './bundle.ts';

const exec = promisify(execFile);
let dir: string;
let floorBytes: number;
const bundles = new Map<string, { bytes: number; mapFile: string; file: string; inputs: string[] }>();

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'bundle-size-'));
  mkdirSync(join(dir, '_floor'));
  floorBytes = (await bundleFloor(join(dir, '_floor'))).bytes;
  for (const [name, bundle] of await bundleAllFunctions(dir)) bundles.set(name, bundle);
}, 300_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

describe('function bundles (as cdk synth builds them: every function in one esbuild run)', () => {
  it(`each weighs at most the floor (the DynamoDB client alone) + ${BUNDLE_OVER_FLOOR_BYTES / 1024} KB minified`, () => {
    const over = [...bundles]
      .filter(([, b]) => b.bytes > floorBytes + BUNDLE_OVER_FLOOR_BYTES)
      .map(([name, b]) => `${name}: floor + ${kb(b.bytes - floorBytes)}`);
    expect(over).toEqual([]);
    expect(bundles.size).toBe(allFunctions().length);
  });

  it(`the authorizer's weighs at most the floor + ${AUTHORIZER_OVER_FLOOR_BYTES / 1024} KB, with the route table's rows and none of their words`, () => {
    const authorizer = bundles.get('authorizer')!;
    expect(authorizer.bytes - floorBytes).toBeLessThanOrEqual(AUTHORIZER_OVER_FLOOR_BYTES);
    const code = readFileSync(authorizer.file, 'utf8');
    // The rows it scopes a portal link's policy to are there; no route's words are.
    for (const route of routes.filter((r) => r.portal)) expect(code, route.name).toContain(`"${route.name}"`);
    for (const [name, doc] of Object.entries(routeDocs)) expect(code, name).not.toContain(doc.summary);
    expect(authorizer.inputs.some((p) => p.endsWith('lib/route-docs.ts'))).toBe(false);
  });

  it('are built only from what their asset hash covers (BUNDLE_INPUTS and installed packages), so synth may reuse one', () => {
    const root = join(import.meta.dirname, '..');
    const covered = (path: string) => {
      const rel = relative(root, path);
      return (
        rel.split(sep)[0] === 'node_modules' ||
        BUNDLE_INPUTS.some((input) => rel === input || rel.startsWith(`${input}${sep}`))
      );
    };
    const outside = [...bundles].flatMap(([name, b]) =>
      b.inputs.filter((p) => !covered(p)).map((p) => `${name}: ${relative(root, p)}`),
    );
    expect(outside).toEqual([]);
    expect([...bundles.values()].every((b) => b.inputs.length > 0)).toBe(true);
  });

  it('ship no source map, and no pointer to one', () => {
    expect(DEPLOYED_SOURCE_MAPS).toBe('none');
    for (const [name, b] of bundles) {
      expect(existsSync(b.mapFile), name).toBe(false);
      expect(readFileSync(b.file, 'utf8'), name).not.toContain('sourceMappingURL');
    }
  });

  it('map back offline: a rebuild with an external map has the very same code, and its map names the source line of an error', async () => {
    const shipped = join(dir, '_probe-shipped');
    const mapped = join(dir, '_probe-mapped');
    mkdirSync(shipped);
    mkdirSync(mapped);
    const deployed = await bundleFunction('infra/fixtures/stack-probe.ts', shipped);
    const rebuilt = await bundleFunction('infra/fixtures/stack-probe.ts', mapped, 'external');
    expect(readFileSync(rebuilt.file)).toEqual(readFileSync(deployed.file));
    // A real function's bundle too: the same bytes with and without the map, and built alone as
    // the mapper builds it or in the one run with every other function as synth builds them.
    const fn = allFunctions().find((f) => f.name === 'retryDelivery')!;
    mkdirSync(join(dir, '_retry-mapped'));
    expect(readFileSync((await bundleFunction(fn.entry, join(dir, '_retry-mapped'), 'external')).file)).toEqual(
      readFileSync(bundles.get('retryDelivery')!.file),
    );

    const script = `const m = await import(process.argv[1]); try { m.failDeepInside(2); } catch (e) { process.stdout.write(e.stack); }`;
    const { stdout: stack } = await exec(process.execPath, ['--input-type=module', '-e', script, deployed.file]);
    expect(stack).toMatch(/index\.mjs:\d+:\d+/);
    const map = readSourceMap(rebuilt.mapFile);
    expect(map.sourcesContent ?? []).toEqual([]);
    const text = mapStackTrace(stack, map);
    const throwLine =
      readFileSync('infra/fixtures/stack-probe.ts', 'utf8')
        .split('\n')
        .findIndex((l) => l.includes('throw new Error')) + 1;
    expect(text).toContain(`(infra/fixtures/stack-probe.ts:${throwLine}:`);
    expect(text).not.toMatch(/index\.mjs:\d+:\d+/);
  });

  it('take AWS credentials from the Lambda environment only, and still talk to DynamoDB and SQS', async () => {
    const out = join(dir, '_probe');
    mkdirSync(out);
    const { file } = await bundleFunction('infra/fixtures/credentials-probe.ts', out);
    const sqs = await startLocalSqs({});
    const accessKeyId = process.env['EMULATOR_ACCESS_KEY_ID']!;
    try {
      const { QueueUrl } = await sqs.client.send(new CreateQueueCommand({ QueueName: `probe-${Date.now()}` }));
      const script = `const m = await import(process.argv[1]);
        const [endpoint, table, queue, sqs] = process.argv.slice(2);
        process.stdout.write(JSON.stringify({ credentials: await m.credentials(), trip: await m.roundTrip(endpoint, table, queue, sqs) }));`;
      const { stdout } = await exec(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          script,
          file,
          process.env['DYNAMODB_ENDPOINT']!,
          tableName(),
          QueueUrl!,
          sqs.endpoint,
        ],
        {
          env: {
            PATH: process.env['PATH'] ?? '',
            AWS_REGION: 'us-east-1',
            // The key id names this test file's database in DynamoDB Local (test/support/per-file-table.ts).
            AWS_ACCESS_KEY_ID: accessKeyId,
            AWS_SECRET_ACCESS_KEY: 'secret-example',
            AWS_SESSION_TOKEN: 'token-example',
          },
        },
      );
      const result = JSON.parse(stdout) as {
        credentials: Record<string, string>;
        trip: { item: unknown; queueArn: string; sentMd5: string; received: string };
      };
      expect(result.credentials).toMatchObject({
        accessKeyId,
        secretAccessKey: 'secret-example',
        sessionToken: 'token-example',
      });
      expect(result.trip.item).toEqual({ PK: 'PROBE#bundle', SK: 'PROBE', nested: { list: [1, 'two'] } });
      expect(result.trip.queueArn).toMatch(/^arn:aws:sqs:/);
      expect(result.trip.received).toBe(JSON.stringify({ probe: 'é✓', at: 1 }));
      expect(result.trip.sentMd5).toBe(createHash('md5').update(result.trip.received).digest('hex'));
    } finally {
      await sqs.stop();
    }
    // The web identity, SSO and container providers and the event-stream codec are not in the bundle.
    const code = readFileSync(file, 'utf8');
    for (const left of [
      'AWS_WEB_IDENTITY_TOKEN_FILE',
      'sso_start_url',
      'AWS_CONTAINER_CREDENTIALS_FULL_URI',
      ':event-type',
    ])
      expect(code, left).not.toContain(left);
    // Nor the pure-JavaScript hashes (a round constant of Sha256Js, a start value of Md5Js, as minified): Node's crypto does both.
    for (const left of ['1116352408', '4023233417']) expect(code, left).not.toContain(left);
  });
});
