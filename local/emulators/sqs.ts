/**
 * The local SQS: fauxqs in this process (the SQS JSON protocol, visibility, receive counts and
 * redrive to a DLQ all behave; fair queues and the in-flight limit added, sqs-fair-queue.ts), or an SQS-compatible endpoint given from outside. The delivery
 * queue and its DLQ are created through the SQS API, with the settings infra/state-stack.ts gives them.
 */

import { mkdirSync } from 'node:fs';
import { Server as NetServer } from 'node:net';
import { join } from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { endpointOverride } from '../../lib/aws-endpoint.ts';
import { installFairQueueAndInFlightLimit } from './sqs-fair-queue.ts';

export interface LocalSqs {
  endpoint: string;
  client: SQSClient;
  stop(): Promise<void>;
}

const ALL_INTERFACES = new Set(['0.0.0.0', '::']);

/**
 * Runs `start` with every all-interfaces listen of this process bound to `host` instead. fauxqs
 * 2.4.1 (the newest) listens on 0.0.0.0 whatever its `host` option says (that option only names
 * the host in queue URLs), and the queues carry signed deliveries, so the emulator must not be
 * reachable from the network. The rewrite lasts only while fauxqs starts; `npm start` starts its
 * listeners one after the other, so no other listener is started in that window.
 */
async function listeningOnlyOn<T>(host: string, start: () => Promise<T>): Promise<T> {
  const listen = NetServer.prototype.listen;
  NetServer.prototype.listen = function (this: NetServer, ...args: unknown[]) {
    const [first] = args;
    if (typeof first === 'object' && first !== null && ALL_INTERFACES.has(String((first as { host?: unknown }).host)))
      args[0] = { ...first, host };
    return (listen as (...a: unknown[]) => NetServer).apply(this, args);
  } as typeof listen;
  try {
    return await start();
  } finally {
    NetServer.prototype.listen = listen;
  }
}

/** `host`: where fauxqs listens (default loopback, as every local listener; HOST widens them all). */
export async function startLocalSqs(options: {
  endpoint?: string;
  dataDir?: string;
  host?: string;
}): Promise<LocalSqs> {
  let server: FauxqsServer | undefined;
  let endpoint = options.endpoint;
  if (!endpoint) {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    // What AWS's standard queues do and fauxqs does not: fair queues and the in-flight limit.
    await installFairQueueAndInFlightLimit();
    server = await listeningOnlyOn(options.host ?? '127.0.0.1', () =>
      startFauxqs({
        port: 0,
        host: '127.0.0.1',
        logger: false,
        ...(options.dataDir ? { dataDir: options.dataDir } : {}),
      }),
    );
    endpoint = server.address;
  }
  const client = new SQSClient(endpointOverride(endpoint));
  return {
    endpoint,
    client,
    stop: async () => {
      client.destroy();
      await server?.stop();
    },
  };
}

export interface QueueSettings {
  /** The queue's own visibility timeout: how long a message that failed without a plan stays hidden. */
  visibilityTimeoutSeconds: number;
  /** Receives before a message goes to the DLQ: more than the retry schedule's attempts. */
  maxReceiveCount: number;
}

export interface DeliveryQueues {
  queueUrl: string;
  queueArn: string;
  deadLetterQueueUrl: string;
}

async function arnOf(client: SQSClient, queueUrl: string): Promise<string> {
  const { Attributes } = await client.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ['QueueArn'] }),
  );
  const arn = Attributes?.QueueArn;
  if (!arn) throw new Error(`queue ${queueUrl} has no ARN`);
  return arn;
}

/** CreateQueue is idempotent for equal attributes, so a restart finds the same queues (and, persisted, their messages). */
export async function createDeliveryQueues(
  client: SQSClient,
  baseName: string,
  settings: QueueSettings,
): Promise<DeliveryQueues> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: `${baseName}-dlq`,
      Attributes: { MessageRetentionPeriod: String(14 * 24 * 3600) },
    }),
  );
  const deadLetterQueueUrl = dlq.QueueUrl!;
  const deadLetterArn = await arnOf(client, deadLetterQueueUrl);
  const main = await client.send(
    new CreateQueueCommand({
      QueueName: `${baseName}-deliveries`,
      Attributes: {
        VisibilityTimeout: String(settings.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(4 * 24 * 3600),
        RedrivePolicy: JSON.stringify({
          deadLetterTargetArn: deadLetterArn,
          maxReceiveCount: String(settings.maxReceiveCount),
        }),
      },
    }),
  );
  const queueUrl = main.QueueUrl!;
  return { queueUrl, queueArn: await arnOf(client, queueUrl), deadLetterQueueUrl };
}

export const fauxqsDataDir = (dataDir: string): string => join(dataDir, 'sqs');
