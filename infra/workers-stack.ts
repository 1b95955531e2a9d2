/**
 * The workers stack (stateless): the functions no route invokes (outbox relay and search indexer
 * on the table's stream, its two readers, delivery on the delivery queue, the daily trend rollover) with their event
 * sources and schedule. Each has a role of its own: its event source or failure destination adds
 * permissions no other function should get.
 */
import { ArnFormat, CfnOutput, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { ArnPrincipal, type IRole, PolicyStatement, Role, SessionTagsPrincipal } from 'aws-cdk-lib/aws-iam';
import { type IFunction, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { type IQueue, Queue } from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { DELIVERY, DESTINATIONS, STREAM, TREND_ROLLOVER } from '../lib/core/settings.ts';
import { DESTINATION_KEY_ACTIONS, DESTINATION_KEY_VIA_SERVICES } from '../lib/destinations/policy.ts';
import { RELAY_STREAM_FILTERS } from '../lib/events/stream-filter.ts';
import { DESTINATION_ACTIONS } from '../lib/function-grants.ts';
import { SEARCH_INDEX_FILTER_PATTERN } from '../lib/marketplace/search/search-indexer.ts';
import { TREND_ROLLOVER_UTC, workerGrants, workers } from '../lib/routes.ts';
import {
  destinationSenderRoleName,
  type FunctionOptions,
  functionEnvironment,
  makeFunction,
  pushFunctionName,
  sharedLogGroup,
} from './lambda-function.ts';
import { errorLogFilter } from './log-metrics.ts';
import { FunctionRoles } from './roles.ts';
import { FUNCTION_MEMORY_MB } from './sizing.ts';
import type { StageConfig } from './stage-config.ts';
import { type StateStack, trendRolloverRuleName } from './state-stack.ts';

export interface WorkersStackProps extends StackProps {
  config: StageConfig;
  state: StateStack;
}

/** DELIVERY: a batch's 10 s endpoint deadlines plus bookkeeping; a dead worker's messages come back within 25 s. */
const DELIVERY_TIMEOUT = Duration.seconds(DELIVERY.functionTimeoutSeconds);

export class WorkersStack extends Stack {
  /** Every worker function, for monitoring. */
  readonly functions: Array<{ name: string; fn: IFunction }> = [];

  constructor(scope: Construct, id: string, props: WorkersStackProps) {
    super(scope, id, props);
    const { config, state } = props;
    const { table, deliveryQueue, destinationQueue } = state;
    const environment = functionEnvironment(config, table.tableName);
    // The push worker by its fixed name: it lives in the API stack's push nested stack, and a reference
    // would tie the two stateless stacks together (infra/stacks.ts).
    const pushArn = this.formatArn({
      service: 'lambda',
      resource: 'function',
      resourceName: pushFunctionName(config.name),
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    const roles = new FunctionRoles(this, 'Roles', table, [deliveryQueue, destinationQueue], state.signingKey, {
      push: pushArn,
    });
    const logGroup = sharedLogGroup(this, 'WorkerLogs', config);
    roles.allowLogsTo(logGroup);
    errorLogFilter(this, 'Workers', logGroup, config.name);
    const fn = (name: keyof typeof workers, options: FunctionOptions) => {
      const made = makeFunction(
        this,
        config,
        environment,
        name,
        workers[name],
        { role: roles.forGrant(workerGrants[name], name), logGroup },
        { memorySize: FUNCTION_MEMORY_MB[name], ...options },
      );
      this.functions.push({ name, fn: made });
      return made;
    };
    const queueEnv = { DELIVERY_QUEUE_URL: deliveryQueue.queueUrl, DESTINATION_QUEUE_URL: destinationQueue.queueUrl };

    // Outbox relay: new event rows, gap markers and the relay's own request rows, filtered by Lambda
    // before the function is even invoked. It hands the new feed slots to the push worker (an
    // asynchronous invoke by the worker's fixed name: lib/events/push-hand-off.ts), so the stream
    // has two readers, this and the search indexer.
    const relay = fn('relay', {
      reservedConcurrency: config.reservedConcurrency.relay,
      env: { ...queueEnv, PUSH_FUNCTION_NAME: pushFunctionName(config.name) },
    });
    // The same patterns the local stream poller applies (lib/events/stream-filter.ts).
    streamConsumer(table, relay, state.relayFailures, RELAY_STREAM_FILTERS);

    // Search index: template changes → postings and prefix counters (the stream's second consumer).
    const searchIndexer = fn('searchIndexer', { timeout: Duration.seconds(STREAM.workerTimeoutSeconds) });
    // The same pattern the local stream poller applies (lib/marketplace/search/search-indexer.ts).
    streamConsumer(table, searchIndexer, state.searchIndexFailures, [SEARCH_INDEX_FILTER_PATTERN]);

    const deliver = fn('deliver', {
      timeout: DELIVERY_TIMEOUT,
      env: { ...queueEnv, WEBHOOK_SIGNING_KMS_KEY_ID: state.signingKey.keyArn },
    });
    deliver.addEventSource(
      new SqsEventSource(deliveryQueue, {
        batchSize: DELIVERY.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: config.queueConsumerConcurrency,
      }),
    );

    // Customers' AWS destinations: their own queue and worker, and the role every send is made with.
    const senderRole = destinationSenderRole(
      config.name,
      this,
      roles.forGrant(workerGrants.deliverToDestinations, 'deliverToDestinations'),
    );
    const deliverToDestinations = fn('deliverToDestinations', {
      timeout: DELIVERY_TIMEOUT,
      env: queueEnv,
    });
    // Customers put it in their queue and bus policies (docs/webhooks.md, section 12).
    new CfnOutput(this, 'DestinationSenderRoleArn', { value: senderRole.roleArn });
    deliverToDestinations.addEventSource(
      new SqsEventSource(destinationQueue, {
        batchSize: DELIVERY.batchSize,
        reportBatchItemFailures: true,
        maxConcurrency: config.queueConsumerConcurrency,
      }),
    );

    // Trending's daily rollover: one read and one write per template installed in the last week.
    const trendRollover = fn('trendRollover', { timeout: Duration.seconds(TREND_ROLLOVER.timeoutSeconds) });
    // A run that still fails after Lambda's own retries lands in a queue instead of vanishing; a missed
    // day only costs the trending reads extra rounds until the next run.
    trendRollover.configureAsyncInvoke({ retryAttempts: 2, onFailure: new SqsDestination(state.rolloverFailures) });
    // An invocation EventBridge itself could not make lands in the schedule DLQ. Imported by ARN: its
    // policy (in the stateful stack) names this rule, so nothing here writes back into that stack.
    const scheduleDeadLetters: IQueue = Queue.fromQueueArn(
      this,
      'ScheduleDeadLetters',
      state.scheduleDeadLetters.queueArn,
    );
    new Rule(this, 'TrendRolloverSchedule', {
      ruleName: trendRolloverRuleName(config.name),
      schedule: Schedule.cron({ hour: String(TREND_ROLLOVER_UTC.hour), minute: String(TREND_ROLLOVER_UTC.minute) }),
      targets: [new LambdaFunction(trendRollover, { retryAttempts: 2, deadLetterQueue: scheduleDeadLetters })],
    });
  }
}

/**
 * A consumer of the table's stream: records filtered by Lambda before the function runs, per-record
 * failures reported and retried (bisecting a failing batch), and what still fails kept in a queue.
 */
function streamConsumer(table: ITable, fn: IFunction, failures: IQueue, patterns: readonly unknown[]): void {
  fn.addEventSource(
    new DynamoEventSource(table, {
      startingPosition: StartingPosition.TRIM_HORIZON,
      batchSize: STREAM.batchSize,
      bisectBatchOnError: true,
      retryAttempts: STREAM.retryAttempts,
      reportBatchItemFailures: true,
      onFailure: new SqsDlq(failures),
      // Several filters: Lambda passes a record that matches any of them.
      filters: patterns.map((pattern) => ({ pattern: JSON.stringify(pattern) })),
    }),
  );
  table.grantStreamRead(fn);
}

/**
 * The role deliveries to customers' queues and buses are made with (docs/webhooks.md, "AWS
 * destinations"). Only the destination worker may assume it, and only with the account session tag
 * (lib/destinations/session.ts): customers' resource policies allow it while that tag is their
 * account, which is the answer to the confused deputy. It may send to any queue and put on any bus
 * except the service's own account's, so no registration can turn it on the service itself.
 */
function destinationSenderRole(stage: string, scope: Stack, worker: IRole): Role {
  const tag = DESTINATIONS.tenantTagKey;
  const role = new Role(scope, 'DestinationSenderRole', {
    assumedBy: new SessionTagsPrincipal(new ArnPrincipal(worker.roleArn)).withConditions({
      Null: { [`aws:RequestTag/${tag}`]: 'false' },
      'ForAllValues:StringEquals': { 'aws:TagKeys': [tag] },
    }),
    roleName: destinationSenderRoleName(stage),
    maxSessionDuration: Duration.hours(1),
    description: `${scope.stackName}: sends to customers' SQS queues and EventBridge buses, one session per account`,
  });
  const notOwnAccount = { StringNotEquals: { 'aws:ResourceAccount': scope.account } };
  role.addToPolicy(
    new PolicyStatement({ actions: ['sqs:SendMessage'], resources: ['arn:*:sqs:*:*:*'], conditions: notOwnAccount }),
  );
  role.addToPolicy(
    new PolicyStatement({
      actions: ['events:PutEvents'],
      resources: ['arn:*:events:*:*:event-bus/*'],
      conditions: notOwnAccount,
    }),
  );
  // A customer's queue or bus encrypted with their own key: cross-account KMS needs this side too (the
  // key policy is theirs), and only as SQS or EventBridge use the key on the role's behalf.
  role.addToPolicy(
    new PolicyStatement({
      actions: [...DESTINATION_KEY_ACTIONS],
      resources: ['arn:*:kms:*:*:key/*'],
      conditions: { ...notOwnAccount, StringLike: { 'kms:ViaService': [...DESTINATION_KEY_VIA_SERVICES] } },
    }),
  );
  worker.addToPrincipalPolicy(new PolicyStatement({ actions: [...DESTINATION_ACTIONS], resources: [role.roleArn] }));
  return role;
}
