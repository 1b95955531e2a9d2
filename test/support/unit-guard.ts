import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterAll, afterEach } from 'vitest';
import { closeOpened } from './close-after-test.ts';
import { snapshotEnvironment } from './environment-snapshot.ts';
import { removeScratchDirs } from './scratch-dir.ts';

/**
 * The unit tier's setup file: a unit file must never reach DynamoDB, SQS or a JVM, and this makes
 * one that does fail, naming the tier to move it to (test/tiers.ts). DYNAMODB_ENDPOINT and
 * SQS_ENDPOINT point at a trap on 127.0.0.1 that refuses every request (a 400, so the SDK does not
 * retry) and counts it, and `java` on PATH is a script that refuses to start and leaves a mark.
 * Child processes inherit both. The file's afterAll fails if anything was caught, even when the
 * test swallowed the error.
 */
const restoreEnvironment = snapshotEnvironment();
const MOVE = 'belongs in the integration tier: remove it from UNIT_FILES in test/tiers.ts';
const shims = mkdtempSync(join(tmpdir(), 'unit-tier-'));
const javaMark = join(shims, 'java-started');
writeFileSync(
  join(shims, 'java'),
  `#!/bin/sh\necho "$0 $*" >> '${javaMark}'\necho 'unit tier: this file started Java (DynamoDB Local) and ${MOVE}' >&2\nexit 1\n`,
);
chmodSync(join(shims, 'java'), 0o755);
process.env['PATH'] = `${shims}${delimiter}${process.env['PATH'] ?? ''}`;
process.env['TABLE_NAME'] = 'unit-tier-has-no-table';
process.env['AWS_REGION'] ??= 'us-east-1';
process.env['LOG_LEVEL'] ??= 'silent';

const caught: string[] = [];
const trap = createServer((req, res) => {
  caught.push(`${req.method} ${String(req.headers['x-amz-target'] ?? req.url)}`);
  req.resume();
  res.statusCode = 400;
  res.setHeader('content-type', 'application/x-amz-json-1.0');
  res.end(
    JSON.stringify({
      __type: 'com.amazonaws.dynamodb.v20120810#UnitTierException',
      message: `unit tier: this file reached an emulator and ${MOVE}`,
    }),
  );
});

// Before the test file is imported, so a module reading the environment at load sees the trap too.
await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', resolve));
const endpoint = `http://127.0.0.1:${(trap.address() as AddressInfo).port}`;
process.env['DYNAMODB_ENDPOINT'] = endpoint;
process.env['SQS_ENDPOINT'] = endpoint;

// What a test opened through the support modules (receivers, servers), closed after it.
afterEach(closeOpened);

// Registered first, so it runs after the file's own afterAll hooks.
afterAll(async () => {
  await new Promise<void>((resolve) => trap.close(() => resolve()));
  const java = existsSync(javaMark) ? readFileSync(javaMark, 'utf8').trim() : '';
  rmSync(shims, { recursive: true, force: true });
  removeScratchDirs();
  restoreEnvironment();
  if (caught.length > 0)
    throw new Error(
      `unit tier: this file sent ${caught.length} request(s) to DynamoDB/SQS (${caught.slice(0, 3).join(', ')}) and ${MOVE}`,
    );
  if (java) throw new Error(`unit tier: this file started Java (${java}) and ${MOVE}`);
});
