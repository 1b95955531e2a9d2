/**
 * The accounts' DynamoDB calls: the user item, the key items (by hash, and in the keys' GSI1
 * partition by key id), and the flags the admin commands change on them.
 */
import { GetCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import type { Caller } from '../core/caller.ts';
import { db, tableName } from '../store/client.ts';
import * as keys from '../store/key-builders.ts';
import { ENTITY, type Key } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';

/** A key or user item as the document client returns it. */
export type StoredItem = Record<string, NativeAttributeValue>;

/** The user and their first key, in one transaction; either already there fails it. */
export async function putUserWithKey(user: Caller, hash: string, keyId: string, createdAt: string): Promise<void> {
  await db().send(
    new TransactWriteCommand({
      TransactItems: [
        {
          Put: {
            TableName: tableName(),
            Item: { ...keys.user(user.userId), entity: ENTITY.user, ...user, createdAt, keyIds: [keyId] },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          Put: {
            TableName: tableName(),
            Item: {
              ...keys.apiKey(hash),
              entity: ENTITY.apiKey,
              ...user,
              createdAt,
              keyId,
              ...keys.apiKeysIndex(keyId),
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
      ],
    }),
  );
}

/** The key's hash (its usage identifier) from its item's key, `APIKEY#<hash>` (keys.apiKey). */
export const keyHashOf = (item: StoredItem): string => String(item['PK']).slice(keys.apiKey('').PK.length);

/** Strongly consistent: a key revoked a moment ago is seen revoked. */
export async function keyItemByHash(hash: string): Promise<StoredItem | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.apiKey(hash), ConsistentRead: true }),
  );
  return Item;
}

export async function userItem(userId: string): Promise<StoredItem | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.user(userId), ConsistentRead: true }),
  );
  return Item;
}

/** One page of the keys' index partition (one user's keys only, when `userId` is given). */
export async function keyItemsPage(
  userId: string | undefined,
  startKey: Record<string, unknown> | undefined,
): Promise<{ items: StoredItem[]; nextKey: Record<string, unknown> | undefined }> {
  const page = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: INDEXES.gsi1.name,
      KeyConditionExpression: '#pk = :pk',
      ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey },
      ExpressionAttributeValues: { ':pk': keys.apiKeysIndexPk, ...(userId ? { ':user': userId } : {}) },
      ...(userId ? { FilterExpression: 'userId = :user' } : {}),
      ExclusiveStartKey: startKey,
    }),
  );
  return { items: page.Items ?? [], nextKey: page.LastEvaluatedKey };
}

export async function keyItemById(keyId: string): Promise<StoredItem | undefined> {
  const { Items } = await db().send(
    new QueryCommand({
      TableName: tableName(),
      IndexName: INDEXES.gsi1.name,
      KeyConditionExpression: '#pk = :pk AND #sk = :id',
      ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey, '#sk': INDEXES.gsi1.sortKey },
      ExpressionAttributeValues: { ':pk': keys.apiKeysIndexPk, ':id': keyId },
    }),
  );
  return Items?.[0];
}

/** Marks a key item revoked; the first revocation's time stays. The item after the change. */
export async function markKeyRevoked(key: Key, now: string): Promise<StoredItem> {
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: key,
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': now },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return Attributes!;
}

/** Sets `verified` on each item (the user and their keys), all at once. */
export async function setVerifiedOn(items: Key[], verified: boolean): Promise<void> {
  await Promise.all(
    items.map((Key) =>
      db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key,
          UpdateExpression: 'SET verified = :verified',
          ConditionExpression: 'attribute_exists(PK)',
          ExpressionAttributeValues: { ':verified': verified },
        }),
      ),
    ),
  );
}
