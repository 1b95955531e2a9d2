/**
 * The local SQS: fauxqs in this process (the SQS JSON protocol, visibility, receive counts and
 * redrive to a DLQ all behave), or an SQS-compatible endpoint given from outside. The delivery
 * queue and its DLQ are created through the SQS API, with the settings infra/state-stack.ts gives them.
 */

import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { type FauxqsServer, startFauxqs } from 'fauxqs';
import { endpointOverride } from '../../lib/aws-endpoint.ts';

export interface LocalSqs {
  endpoint: string;
  client: SQSClient;
  stop(): Promise<void>;
}

export async function startLocalSqs(options: { endpoint?: string; dataDir?: string }): Promise<LocalSqs> {
  let server: FauxqsServer | undefined;
  let endpoint = options.endpoint;
  if (!endpoint) {
    if (options.dataDir) mkdirSync(options.dataDir, { recursive: true });
    server = await startFauxqs({
      port: 0,
      host: '127.0.0.1',
      logger: false,
      ...(options.dataDir ? { dataDir: options.dataDir } : {}),
    });
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
