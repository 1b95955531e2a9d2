/**
 * What a function may do to the table and the delivery queue, as IAM actions. The route table
 * (lib/routes.ts) says `access` and `sendsToQueue` per function; infra grants exactly these
 * actions (infra/grants.ts) and the local runtime refuses any other (local/lambda/grant-guard.ts), so
 * a grant that is too small fails `npm test`, not the deployment.
 */

/** No Scan anywhere: no request path may scan (CDK's grantReadData would include it). */
const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'] as const;
const WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'] as const;

export const TABLE_ACTIONS = {
  none: [],
  read: READ,
  readwrite: [...READ, ...WRITE],
} as const satisfies Record<string, readonly string[]>;

export type TableAccess = keyof typeof TABLE_ACTIONS;

/**
 * The same lists as CDK's `grantSendMessages` / `grantConsumeMessages` (the queues use SQS-managed
 * keys: no KMS grant), and a consumer also sends: its messages' later attempts go back to the queue
 * as delayed copies (lib/events/delivery/queue.ts, `sendLater`).
 */
export const QUEUE_ACTIONS = {
  send: ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'],
  consume: [
    'sqs:SendMessage',
    'sqs:ReceiveMessage',
    'sqs:ChangeMessageVisibility',
    'sqs:GetQueueUrl',
    'sqs:DeleteMessage',
    'sqs:GetQueueAttributes',
  ],
} as const satisfies Record<string, readonly string[]>;

export type QueueUse = keyof typeof QUEUE_ACTIONS;

/**
 * The KMS key that wraps the data keys of the agents' ed25519 private keys (lib/webhooks/data-key.ts):
 * the route that makes key pairs seals (GenerateDataKey), the functions that sign open (Decrypt).
 * Locally a key file stands in, so the local runtime has nothing to enforce here.
 */
export const SIGNING_KEY_ACTIONS = {
  seal: ['kms:GenerateDataKey'],
  open: ['kms:Decrypt'],
} as const satisfies Record<string, readonly string[]>;

export type SigningKeyUse = keyof typeof SIGNING_KEY_ACTIONS;

/** Posting to (and closing) the push channel's WebSocket connections, on that API's @connections only. */
export const CONNECTION_ACTIONS = { manage: ['execute-api:ManageConnections'] } as const;

export type ConnectionUse = keyof typeof CONNECTION_ACTIONS;
/**
 * Invoking another function asynchronously: the relay hands each batch's feed slots to the push
 * worker (lib/events/push-hand-off.ts), so the table's stream has two readers, not three.
 */
export const INVOKE_ACTIONS = { push: ['lambda:InvokeFunction'] } as const;

export type InvokeTarget = keyof typeof INVOKE_ACTIONS;
/** Sessions of the destination sender role, tagged with the account they send for (lib/destinations/session.ts). */
export const DESTINATION_ACTIONS = ['sts:AssumeRole', 'sts:TagSession'] as const;

export interface FunctionGrant {
  table: TableAccess;
  /** The delivery queue and the destinations' queue (lib/events/delivery/destination-queue.ts) alike. */
  queue?: QueueUse;
  signingKey?: SigningKeyUse;
  connections?: ConnectionUse;
  /** Sends to customers' AWS destinations through the sender role. */
  destinations?: true;
  /** Invokes that function (its name only: infra grants lambda:InvokeFunction on its ARN). */
  invokes?: InvokeTarget;
}

/** Every action a grant allows. */
export function actionsOf(grant: FunctionGrant): string[] {
  return [
    ...TABLE_ACTIONS[grant.table],
    ...(grant.queue ? QUEUE_ACTIONS[grant.queue] : []),
    ...(grant.signingKey ? SIGNING_KEY_ACTIONS[grant.signingKey] : []),
    ...(grant.connections ? CONNECTION_ACTIONS[grant.connections] : []),
    ...(grant.destinations ? DESTINATION_ACTIONS : []),
    ...(grant.invokes ? INVOKE_ACTIONS[grant.invokes] : []),
  ];
}
