/**
 * What a running `npm start` tells the invoke command that the environment cannot: where its
 * delivery queue is (fauxqs listens on a port of its own choosing) and where its API (and with it
 * the push channel's @connections) listens. One small file per DynamoDB endpoint and database (the
 * emulator's access key id picks the database: test files share one DynamoDB Local, each with its
 * own database, and each its own runtime) in the temporary folder, written once the pipeline runs
 * and removed at stop; a file whose pid is gone is ignored.
 */
import { createHash } from 'node:crypto';
import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clientScope } from '../lib/aws-endpoint.ts';
import { pidAlive } from './data-dir-lock.ts';

export interface RuntimeInfo {
  pid: number;
  sqs_endpoint: string;
  queue_url: string;
  /** The push channel's @connections API: the local API's own URL (absent where no API listens, as in a bench). */
  connections_endpoint?: string;
}

const pathFor = (dynamoEndpoint: string): string =>
  join(
    tmpdir(),
    `template-marketplace-runtime-${createHash('sha256').update(clientScope(dynamoEndpoint)).digest('hex').slice(0, 16)}.json`,
  );

function read(path: string): RuntimeInfo | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as RuntimeInfo;
  } catch {
    return undefined;
  }
}

/** Publishes this process's queue for `dynamoEndpoint`; the returned function withdraws it. */
export function publishRuntime(dynamoEndpoint: string, info: Omit<RuntimeInfo, 'pid'>): () => void {
  const path = pathFor(dynamoEndpoint);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify({ pid: process.pid, ...info }), { mode: 0o600 });
  // A rename replaces whatever has the name (never writes through a link someone left there).
  renameSync(temporary, path);
  return () => {
    if (read(path)?.pid === process.pid) unlinkSync(path);
  };
}

/** The runtime serving `dynamoEndpoint`, if one is running. */
export function findRuntime(dynamoEndpoint: string): RuntimeInfo | undefined {
  const info = read(pathFor(dynamoEndpoint));
  return info && typeof info.pid === 'number' && pidAlive(info.pid) ? info : undefined;
}
