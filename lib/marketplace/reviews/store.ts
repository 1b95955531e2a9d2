/** DynamoDB access of the reviews room: a new review with the template's rating sums, one review by key, the review index pages. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../../store/client.ts';
import { cursorPage, type PageRequest } from '../../store/cursor-page.ts';
import { readIndexPage } from '../../store/index-page.ts';
import * as keys from '../../store/key-builders.ts';
import { INDEXES } from '../../store/table.ts';
import { type TransactItem, type TransactResult, transactWrite } from '../../store/transact.ts';

const reviewsIndex = INDEXES.gsi1;

/** One user's review of a template (at most one exists), hidden or not; consistent, as moderation acts on it. */
export async function readReview(templateId: string, reviewerId: string): Promise<Record<string, unknown> | undefined> {
  const { Item } = await db().send(
    new GetCommand({ TableName: tableName(), Key: keys.review(templateId, reviewerId), ConsistentRead: true }),
  );
  return Item;
}

/** The review (only if the user has none: the first failed condition), the template's rating sums, the day's stats. */
export const insertReview = (
  review: Record<string, unknown>,
  templateId: string,
  rating: number,
  stats: TransactItem,
  along: TransactItem[] = [],
): Promise<TransactResult> =>
  transactWrite([
    { Put: { TableName: tableName(), Item: review, ConditionExpression: 'attribute_not_exists(PK)' } },
    {
      Update: {
        TableName: tableName(),
        Key: keys.template(templateId),
        UpdateExpression: 'ADD rating_sum :rating, rating_count :one',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':rating': rating, ':one': 1 },
      },
    },
    stats,
    ...along,
  ]);

/** The newest `limit` visible reviews. */
export const reviewsPage = async (templateId: string, limit: number) =>
  (await readIndexPage(reviewsIndex, keys.reviewsIndexPk(templateId), { skip: 0, limit })).entries;

/** A page of the visible reviews for a list route's query. */
export const reviewsCursorPage = (templateId: string, query: PageRequest) =>
  cursorPage(reviewsIndex, keys.reviewsIndexPk(templateId), `reviews|${templateId}`, query);

/** The newest `limit` hidden reviews (moderation moves a hidden review's GSI1 entry there). */
export const hiddenReviewsPage = async (templateId: string, limit: number) =>
  (await readIndexPage(reviewsIndex, keys.hiddenReviewsIndexPk(templateId), { skip: 0, limit })).entries;
