import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { keys } from '../../store/keys.ts';
import { ratingAverage, ratingKey, type TemplateItem } from '../templates/template-item.ts';

/**
 * `rating_sum` and `rating_count` move with `ADD` in the review's transaction, so they are exact.
 * The average and the sort key derive from both and cannot be written by `ADD`; they are set
 * afterwards from a strongly consistent read, on the condition that the count is still the one
 * read. Of concurrent reviewers, the one who reads the final count writes last and right; the
 * others' conditions fail harmlessly. Responses compute the average from the counters anyway.
 */
export async function refreshRatingKey(templateId: string, attempts = 3): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.template(templateId), ConsistentRead: true }));
    const item = Item as TemplateItem | undefined;
    if (!item) return;
    const [sum, count] = [Number(item.rating_sum ?? 0), Number(item.rating_count ?? 0)];
    if (item.ratingKey === ratingKey(sum, count)) return;
    try {
      await db().send(
        new UpdateCommand({
          TableName: tableName(),
          Key: keys.template(templateId),
          UpdateExpression: 'SET rating_avg = :avg, ratingKey = :key',
          ConditionExpression: 'rating_count = :count',
          ExpressionAttributeValues: { ':avg': ratingAverage(sum, count), ':key': ratingKey(sum, count), ':count': count },
        }),
      );
      return;
    } catch (err) {
      if (!(err instanceof ConditionalCheckFailedException)) throw err;
    }
  }
}
