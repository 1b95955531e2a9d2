import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { QUEUE_ACTIONS, TABLE_ACTIONS, type FunctionGrant } from '../lib/function-grants.ts';

/** Least privilege, from the same action lists the local runtime enforces (lib/function-grants.ts). */
export function grantFunction(fn: IFunction, table: ITable, queue: IQueue, grant: FunctionGrant): void {
  const tableActions = TABLE_ACTIONS[grant.table];
  if (tableActions.length > 0) {
    fn.addToRolePolicy(new PolicyStatement({ actions: [...tableActions], resources: [table.tableArn, `${table.tableArn}/index/*`] }));
  }
  if (grant.queue) queue.grant(fn, ...QUEUE_ACTIONS[grant.queue]);
}
