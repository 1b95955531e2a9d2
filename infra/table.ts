import { RemovalPolicy } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { indexList, TABLE_KEYS, TTL_ATTRIBUTE } from '../lib/store/table.ts';

/** The single table, built from the same definition the local runtime uses (lib/store/table.ts). */
export function createTable(scope: Construct): Table {
  const table = new Table(scope, 'Table', {
    partitionKey: { name: TABLE_KEYS.partitionKey, type: AttributeType.STRING },
    sortKey: { name: TABLE_KEYS.sortKey, type: AttributeType.STRING },
    billingMode: BillingMode.PAY_PER_REQUEST,
    stream: StreamViewType.NEW_AND_OLD_IMAGES,
    timeToLiveAttribute: TTL_ATTRIBUTE,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const index of indexList) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: AttributeType.STRING },
      sortKey: { name: index.sortKey, type: index.sortKeyType === 'N' ? AttributeType.NUMBER : AttributeType.STRING },
      projectionType: index.projection === 'ALL' ? ProjectionType.ALL : ProjectionType.KEYS_ONLY,
    });
  }
  return table;
}
