/**
 * Least privilege on the table. CDK's grantReadData includes Scan; no request path may scan,
 * so IAM refuses it too.
 */
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';

const READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];

export function grantTable(fn: IFunction, table: ITable, access: 'read' | 'readwrite' | 'none'): void {
  if (access === 'none') return;
  fn.addToRolePolicy(
    new PolicyStatement({
      actions: access === 'read' ? READ : [...READ, ...WRITE],
      resources: [table.tableArn, `${table.tableArn}/index/*`],
    }),
  );
}
