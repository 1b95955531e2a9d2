import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IGrantable, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import {
  type FunctionGrant,
  INVOKE_ACTIONS,
  type InvokeTarget,
  QUEUE_ACTIONS,
  SIGNING_KEY_ACTIONS,
  TABLE_ACTIONS,
} from '../lib/function-grants.ts';
import { indexList } from '../lib/store/table.ts';

/**
 * Least privilege, from the same action lists the local runtime enforces (lib/function-grants.ts),
 * on the table and each of its indexes by name (no `index/*` wildcard).
 */
export function grantAccess(
  grantee: IGrantable,
  table: ITable,
  queues: readonly IQueue[],
  grant: FunctionGrant,
  signingKey?: IKey,
  /** The ARNs of the functions a grant may invoke (`invokes`), by target. */
  invokable: Partial<Record<InvokeTarget, string>> = {},
): void {
  const tableActions = TABLE_ACTIONS[grant.table];
  if (tableActions.length > 0) {
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({
        actions: [...tableActions],
        resources: [table.tableArn, ...indexList.map((index) => `${table.tableArn}/index/${index.name}`)],
      }),
    );
  }
  // The delivery queue and the destinations' queue: what sends to one sends to the other (lib/events/relay.ts, retries).
  if (grant.queue) for (const queue of queues) queue.grant(grantee, ...QUEUE_ACTIONS[grant.queue]);
  if (grant.signingKey) {
    if (!signingKey) throw new Error(`a ${grant.signingKey} grant on the signing key needs the key`);
    signingKey.grant(grantee, ...SIGNING_KEY_ACTIONS[grant.signingKey]);
  }
  if (grant.invokes) {
    const arn = invokable[grant.invokes];
    if (!arn) throw new Error(`an invoke grant on ${grant.invokes} needs the function's ARN`);
    grantee.grantPrincipal.addToPrincipalPolicy(
      new PolicyStatement({ actions: [...INVOKE_ACTIONS[grant.invokes]], resources: [arn] }),
    );
  }
}

/** The name of a grant class: functions with the same one may share a role (infra/roles.ts). */
export const grantClassOf = (grant: FunctionGrant): string =>
  [
    grant.table,
    grant.queue,
    grant.signingKey && `${grant.signingKey}key`,
    grant.connections,
    grant.invokes && `invokes${grant.invokes}`,
  ]
    .filter(Boolean)
    .join('-');
