/** DynamoDB access of the reviews room that the shared list helpers do not cover: one review item by key. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { keys } from '../../store/keys.ts';

/** One user's review of a template (at most one exists), hidden or not; consistent, as moderation acts on it. */
export async function readReview(templateId: string, reviewerId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.review(templateId, reviewerId), ConsistentRead: true }),
  );
  return Item;
}
