import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchWrite, type WriteRequest } from '../store/batch.ts';
import { db, tableName } from '../store/client.ts';
import { ENTITY, keys } from '../store/keys.ts';
import { indexedPrefixes, postingWords } from './search-text.ts';
import type { TemplateItem } from './template-item.ts';

/**
 * The inverted index: a posting item per (word prefix, public template), sorted newest first,
 * carrying the template's words cut to the longest indexed prefix (`w`, see postingWords) so a
 * multi-word search can tell most non-matches from the posting alone. Postings are written in batches after the template's own transaction (a template has more of
 * them than one transaction may hold). Search confirms every hit against the template item, so a
 * posting left behind never shows a template that went private or stopped matching.
 */
/**
 * Each prefix has a list over the whole catalog and one per category (`<category>/<prefix>`), so a
 * search within a category walks postings that are all in it instead of filtering them out.
 */
export const postingList = (prefix: string, category?: string): string => (category ? `${category}/${prefix}` : prefix);

const listsIfPublic = (t: TemplateItem | undefined): Set<string> =>
  t?.visibility === 'public' ? new Set([...indexedPrefixes(t)].flatMap((p) => [postingList(p), postingList(p, t.category)])) : new Set();

const posting = (list: string, t: TemplateItem, w: string | undefined) => ({ ...keys.searchPosting(list, t.recentKey), entity: ENTITY.searchPosting, template_id: t.id, w });

/** All postings of a template (seeding writes them directly). */
export function searchPostings(t: TemplateItem): Record<string, unknown>[] {
  const w = postingWords(t);
  return [...listsIfPublic(t)].map((list) => posting(list, t, w));
}

/**
 * Puts every posting `after` needs (puts are idempotent, so this also repairs postings a crash left
 * unwritten) and deletes those only `before` needed. Then reads the template again: if another
 * change landed meanwhile, it syncs once more from `after` to that state, so two concurrent
 * updates cannot leave a public template without its postings.
 */
export async function syncSearchPostings(before: TemplateItem | undefined, after: TemplateItem, rounds = 3): Promise<void> {
  const had = listsIfPublic(before);
  const wanted = listsIfPublic(after);
  const requests: WriteRequest[] = [
    ...searchPostings(after).map((put) => ({ put })),
    ...[...had].filter((p) => !wanted.has(p)).map((p) => ({ delete: keys.searchPosting(p, after.recentKey) })),
  ];
  if (requests.length) await batchWrite(requests);
  const { Item } = await db().send(new GetCommand({ TableName: tableName(), Key: keys.template(after.id), ConsistentRead: true }));
  const now = Item as TemplateItem | undefined;
  if (now && rounds > 1 && (now.updated_at !== after.updated_at || now.visibility !== after.visibility)) {
    await syncSearchPostings(after, now, rounds - 1);
  }
}
