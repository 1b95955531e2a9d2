import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { NativeAttributeValue } from '@aws-sdk/util-dynamodb';
import { nowIso } from '../core/time.ts';
import { db, tableName } from '../store/client.ts';
import { keys } from '../store/keys.ts';
import { INDEXES } from '../store/table.ts';

/** What the admin commands show of a key: never the key, never its hash. */
export interface KeySummary {
  key_id: string;
  user_id: string;
  name: string;
  verified: boolean;
  operator: boolean;
  created_at: string;
  revoked_at: string | null;
}

/** A key item as the document client returns it. */
type StoredKey = Record<string, NativeAttributeValue>;

const summary = (item: StoredKey): KeySummary => ({
  key_id: item['keyId'],
  user_id: item['userId'],
  name: item['name'],
  verified: item['verified'] === true,
  operator: item['operator'] === true,
  created_at: item['createdAt'],
  revoked_at: item['revokedAt'] ?? null,
});

/** Every key (or one user's), in key-id order, one index page at a time. */
export async function* listKeys(filter: { userId?: string } = {}): AsyncGenerator<KeySummary> {
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await db().send(
      new QueryCommand({
        TableName: tableName(),
        IndexName: INDEXES.gsi1.name,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': INDEXES.gsi1.partitionKey },
        ExpressionAttributeValues: { ':pk': keys.apiKeysIndexPk, ...(filter.userId ? { ':user': filter.userId } : {}) },
        ...(filter.userId ? { FilterExpression: 'userId = :user' } : {}),
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) yield summary(item);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}

async function storedKeyById(keyId: string): Promise<StoredKey | undefined> {
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

/** Marks a key revoked (the first revocation's time stays). Undefined when no such key exists. */
export async function revokeKey(keyId: string): Promise<KeySummary | undefined> {
  const stored = await storedKeyById(keyId);
  if (!stored) return undefined;
  const { Attributes } = await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: { PK: stored['PK'], SK: stored['SK'] },
      UpdateExpression: 'SET revokedAt = if_not_exists(revokedAt, :now)',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':now': nowIso() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  return summary(Attributes!);
}

/** Revokes every key of a user; undefined when there is no such user. */
export async function revokeUserKeys(userId: string): Promise<KeySummary[] | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.user(userId), ConsistentRead: true }),
  );
  if (!Item) return undefined;
  const revoked: KeySummary[] = [];
  for (const keyId of (Item['keyIds'] as string[] | undefined) ?? []) {
    const done = await revokeKey(keyId);
    if (done) revoked.push(done);
  }
  return revoked;
}

/**
 * Marks a user verified or not, on the user and on every key of theirs (the authorizer reads the
 * flag from the key item, so the next request carries it). False when there is no such user.
 */
export async function setUserVerified(userId: string, verified: boolean): Promise<boolean> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.user(userId), ConsistentRead: true }),
  );
  if (!Item) return false;
  const targets = [keys.user(userId)];
  for (const keyId of (Item['keyIds'] as string[] | undefined) ?? []) {
    const stored = await storedKeyById(keyId);
    if (stored) targets.push({ PK: stored['PK'], SK: stored['SK'] });
  }
  await Promise.all(
    targets.map((Key) =>
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
  return true;
}
