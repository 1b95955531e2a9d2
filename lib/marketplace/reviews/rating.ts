/**
 * `rating_sum` and `rating_count` move with `ADD` in the review's transaction, so they are exact.
 * The average and the sort key derive from both and cannot be written by `ADD`; they are set
 * afterwards from a strongly consistent read, on the condition that the count is still the one
 * read. Of concurrent reviewers, the one who reads the final count writes last and right; the
 * others' conditions fail harmlessly. Responses compute the average from the counters anyway.
 */
import { readTemplate, updateTemplateIf } from '../templates/store.ts';
import { ratingAverage, ratingKey } from '../templates/template-item.ts';

export async function refreshRatingKey(templateId: string, attempts = 3): Promise<void> {
  for (let i = 0; i < attempts; i++) {
    const item = await readTemplate(templateId, true);
    if (!item) return;
    const [sum, count] = [Number(item.rating_sum ?? 0), Number(item.rating_count ?? 0)];
    if (item.ratingKey === ratingKey(sum, count)) return;
    const written = await updateTemplateIf(templateId, {
      UpdateExpression: 'SET rating_avg = :avg, ratingKey = :key',
      ConditionExpression: 'rating_count = :count',
      ExpressionAttributeValues: { ':avg': ratingAverage(sum, count), ':key': ratingKey(sum, count), ':count': count },
    });
    if (written) return;
  }
}
