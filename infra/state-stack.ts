/**
 * The stateful stack: the table, the queues and the alarm topic, everything whose loss loses data
 * or subscriptions. It keeps the stack id the single stack had (`TemplateMarketplace-<stage>`) and
 * its constructs' ids, so the table and queues stay where they are when the app is split.
 * Termination protection and RETAIN in prod (the table is retained in every stage). The stateless
 * stacks (API, workers, monitoring) read these through CloudFormation exports.
 */
import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DELIVERY } from '../lib/core/settings.ts';
import type { StageConfig } from './stage-config.ts';
import { createTable } from './table.ts';

export interface StateStackProps extends StackProps {
  config: StageConfig;
}

/** A queue where failed work ends: monitoring alarms on its depth, and its URL is an output (infra/queues.test.ts). */
export interface FailureQueue {
  queue: Queue;
  /** The output with its URL, and the alarm's friendly name. */
  name: string;
  /** What a message in it means, for the alarm and the output. */
  about: string;
}

/** The EventBridge rule of the daily rollover has a fixed name, so the schedule DLQ's policy can name it without a reference back into the workers stack. */
export const trendRolloverRuleName = (stage: string): string => `template-marketplace-${stage}-trend-rollover`;

export class StateStack extends Stack {
  readonly table: Table;
  readonly deliveryQueue: Queue;
  readonly deliveryDeadLetters: Queue;
  /** Deliveries to customers' AWS destinations and their verification messages (lib/events/delivery/destination-queue.ts). */
  readonly destinationQueue: Queue;
  readonly destinationDeadLetters: Queue;
  readonly relayFailures: Queue;
  readonly searchIndexFailures: Queue;
  /** Push worker invocations (the relay's hand-offs) that failed after Lambda's retries (infra/push-stack.ts). */
  readonly pushFailures: Queue;
  readonly rolloverFailures: Queue;
  readonly scheduleDeadLetters: Queue;
  readonly alarmTopic: Topic;
  /**
   * Wraps the data keys that seal the agents' ed25519 private keys (lib/webhooks/data-key.ts). Kept
   * whatever the stage: losing it makes every sealed key unreadable (v1a would need new key pairs).
   */
  readonly signingKey: Key;
  /** Every dead-letter and failure queue, each with an output and (infra/monitoring.ts) an alarm. */
  readonly failureQueues: FailureQueue[] = [];

  constructor(scope: Construct, id: string, props: StateStackProps) {
    super(scope, id, props);
    const { config } = props;
    // Queues and the topic hold messages and subscriptions: kept in prod even if the stack goes.
    const removalPolicy = config.terminationProtection ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    this.table = createTable(this);

    const failureQueue = (id: string, about: string, name = `${id}Url`): Queue => {
      const queue = new Queue(this, id, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: Duration.days(14),
        removalPolicy,
      });
      this.failureQueues.push({ queue, name: id, about });
      new CfnOutput(this, name, { value: queue.queueUrl, description: about });
      return queue;
    };

    this.signingKey = new Key(this, 'WebhookSigningKey', {
      description: `Template marketplace (${config.name}): wraps the data keys of the webhooks' ed25519 signing keys`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.deliveryDeadLetters = failureQueue(
      'DeliveryDeadLetters',
      'Delivery messages that outlasted every receive (poison messages); `npm run admin -- redrive delivery`.',
      'DeliveryDlqUrl',
    );
    // At least the function timeout (AWS's rule for SQS event sources) and short, so a message whose
    // worker died is attempted again within 25 s. AWS advises 6 × the timeout to absorb throttled
    // invocations; here a throttled receive costs one of the 20 receives the DLQ allows, which the
    // schedule's 9 attempts leave room for. Retries are driven by the handler (visibility per
    // attempt); the DLQ is for poison messages only, so the receive count must outlast the whole
    // retry schedule.
    const deliveryQueue = (id: string, deadLetters: Queue): Queue =>
      new Queue(this, id, {
        visibilityTimeout: Duration.seconds(DELIVERY.visibilityTimeoutSeconds),
        retentionPeriod: Duration.days(4),
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        removalPolicy,
        deadLetterQueue: { queue: deadLetters, maxReceiveCount: DELIVERY.maxReceiveCount },
      });
    this.deliveryQueue = deliveryQueue('DeliveryQueue', this.deliveryDeadLetters);
    this.destinationDeadLetters = failureQueue(
      'DestinationDeadLetters',
      'Destination delivery messages that outlasted every receive (poison messages).',
      'DestinationDlqUrl',
    );
    // Customers' AWS destinations: the same schedule, parked the same way, by their own worker.
    this.destinationQueue = deliveryQueue('DestinationQueue', this.destinationDeadLetters);
    this.relayFailures = failureQueue(
      'RelayFailures',
      'Stream batches the outbox relay could not process (which records, not the records).',
    );
    this.searchIndexFailures = failureQueue(
      'SearchIndexFailures',
      'Stream batches the search indexer could not process; `npm run admin -- reindex-search` after the fix.',
    );
    this.pushFailures = failureQueue(
      'PushFailures',
      "Push worker invocations (the relay's hand-offs) that failed after Lambda's retries; clients' syncs sent their events.",
    );
    this.rolloverFailures = failureQueue(
      'TrendRolloverFailures',
      "Trend rollover runs that failed after Lambda's retries.",
    );
    this.scheduleDeadLetters = failureQueue(
      'ScheduleDeadLetters',
      'Trend rollover invocations EventBridge could not make (throttled, function missing).',
    );
    this.scheduleDeadLetters.addToResourcePolicy(
      new PolicyStatement({
        principals: [new ServicePrincipal('events.amazonaws.com')],
        actions: ['sqs:SendMessage'],
        resources: [this.scheduleDeadLetters.queueArn],
        conditions: {
          ArnEquals: {
            'aws:SourceArn': this.formatArn({
              service: 'events',
              resource: 'rule',
              resourceName: trendRolloverRuleName(config.name),
            }),
          },
        },
      }),
    );

    this.alarmTopic = new Topic(this, 'AlarmTopic', {
      displayName: `template-marketplace ${config.name} alarms`,
      enforceSSL: true,
    });
    this.alarmTopic.applyRemovalPolicy(removalPolicy);
    if (config.alarmEmail) {
      // A notification SNS cannot hand to the mail system (throttled, endpoint gone) is kept here, not dropped.
      const undelivered = failureQueue(
        'AlarmEmailDeadLetters',
        'Alarm notifications SNS could not deliver to the alarm e-mail address.',
      );
      this.alarmTopic.addSubscription(new EmailSubscription(config.alarmEmail, { deadLetterQueue: undelivered }));
    }

    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'DeliveryQueueUrl', { value: this.deliveryQueue.queueUrl });
    new CfnOutput(this, 'DestinationQueueUrl', { value: this.destinationQueue.queueUrl });
  }
}
