/**
 * Execution roles shared per grant class (lib/function-grants.ts): every route that reads the
 * table runs with the same role, every route that writes with another, and so on, so a new route
 * adds no role and no policy. Least privilege holds because a class is exactly the actions its
 * routes' rows name (the local runtime enforces the same lists), plus writing to the stack's own
 * log groups and X-Ray (added by the function's tracing).
 */
import { Stack } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { type IRole, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { FunctionGrant, InvokeTarget } from '../lib/function-grants.ts';
import { grantAccess, grantClassOf } from './grants.ts';

export class FunctionRoles extends Construct {
  private readonly roles = new Map<string, Role>();
  private readonly logGroups: ILogGroup[] = [];

  private readonly table: ITable;
  private readonly queues: readonly IQueue[];
  private readonly signingKey: IKey | undefined;
  private readonly invokable: Partial<Record<InvokeTarget, string>>;

  /** `invokable`: the ARNs of the functions a row's `invokes` names (the push worker's, by its fixed name). */
  constructor(
    scope: Construct,
    id: string,
    table: ITable,
    queues: readonly IQueue[],
    signingKey?: IKey,
    invokable: Partial<Record<InvokeTarget, string>> = {},
  ) {
    super(scope, id);
    this.table = table;
    this.queues = queues;
    this.signingKey = signingKey;
    this.invokable = invokable;
  }

  /** Log groups the roles may write to (each function's group must be one of them). */
  allowLogsTo(logGroup: ILogGroup): void {
    this.logGroups.push(logGroup);
    for (const role of this.roles.values()) role.addToPrincipalPolicy(logStatement([logGroup]));
  }

  /**
   * The role of a grant class; `own` gives a function a role of its own (a worker whose event
   * source or failure destination adds permissions no other function of its class should get).
   */
  forGrant(grant: FunctionGrant, own?: string): IRole {
    const key = own ?? grantClassOf(grant);
    const existing = this.roles.get(key);
    if (existing) return existing;
    const role = new Role(this, idOf(key), {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${Stack.of(this).stackName}: ${own ? `the ${own} function` : `functions with grant class ${key}`}`,
    });
    if (this.logGroups.length > 0) role.addToPrincipalPolicy(logStatement(this.logGroups));
    grantAccess(role, this.table, this.queues, grant, this.signingKey, this.invokable);
    this.roles.set(key, role);
    return role;
  }
}

const idOf = (key: string): string =>
  `${key
    .split('-')
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('')}Role`;

/** What AWSLambdaBasicExecutionRole allows, on the named log groups only (the group exists: no CreateLogGroup). */
const logStatement = (groups: ILogGroup[]) =>
  new PolicyStatement({
    actions: ['logs:CreateLogStream', 'logs:PutLogEvents'],
    resources: groups.map((g) => g.logGroupArn),
  });
