import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from '../store/client.ts';
import type { StartKey } from './cursor.ts';
import { templatesInOrder } from './index-page.ts';
import type { TemplateItem } from './template-item.ts';

type Posting = Record<string, unknown>;
const postingKey = (p: Posting): StartKey => ({ PK: p['PK'] as string, SK: p['SK'] as string });

export interface PostingWalk {
  partition: string;
  /** Start after this posting (a cursor's key). */
  start?: StartKey;
  /** Matches wanted (the page, what it skips, and one more to answer has_more). */
  want: number;
  /** Most read units to spend on postings (as DynamoDB reports them: a posting's size varies with its template's words). */
  postingUnits: number;
  /** Most templates to read. */
  checkBudget: number;
  /** False when a posting's words (`w`) rule its template out; postings without words are read. */
  mayMatch: (words: string) => boolean;
  /** Whether a template read is a match. */
  keep: (t: TemplateItem) => boolean;
}

/**
 * Reads one posting list newest first until `want` matches, the end of the list, or a budget.
 * Postings are taken in order only until there are as many candidates as matches still missing, so
 * no template is read past the page, and `lastSeen` is the last posting taken: the walk resumes
 * right after it (postings read but not taken are read again then, which is cheap).
 */
export async function walkPostings(walk: PostingWalk): Promise<{ matches: { item: TemplateItem; posting: StartKey }[]; unread: boolean; lastSeen?: StartKey }> {
  const matches: { item: TemplateItem; posting: StartKey }[] = [];
  let unseen: Posting[] = [];
  let next: Record<string, unknown> | undefined = walk.start;
  let ended = false;
  let lastSeen = walk.start;
  let read = 0;
  let units = 0;
  let checked = 0;
  while (matches.length < walk.want && checked < walk.checkBudget) {
    if (unseen.length === 0) {
      if (ended || units >= walk.postingUnits) break;
      // Size the page from the share of postings that matched so far (postings are cheap, round trips
      // are not) and from what a posting has cost so far, so one page cannot overrun the budget by much.
      const perPosting = read === 0 ? 1 : Math.max(matches.length, 1) / read;
      const affordable = read === 0 ? 100 : Math.max(1, Math.floor(((walk.postingUnits - units) * read) / units));
      const res = await db().send(
        new QueryCommand({
          TableName: tableName(),
          KeyConditionExpression: 'PK = :pk',
          ExpressionAttributeValues: { ':pk': walk.partition },
          ScanIndexForward: false,
          Limit: Math.min(100, affordable, Math.ceil((walk.want - matches.length) / perPosting)),
          ExclusiveStartKey: next,
          ReturnConsumedCapacity: 'TOTAL',
        }),
      );
      unseen = res.Items ?? [];
      read += unseen.length;
      // DynamoDB always reports it when asked; the fallback (a 4 KB read) only keeps the walk finite.
      units += res.ConsumedCapacity?.CapacityUnits ?? 0.5;
      next = res.LastEvaluatedKey;
      ended = next === undefined;
      continue;
    }
    const candidates: Posting[] = [];
    let taken = 0;
    const room = Math.min(walk.want - matches.length, walk.checkBudget - checked);
    while (taken < unseen.length && candidates.length < room) {
      const p = unseen[taken++]!;
      if (typeof p['w'] !== 'string' || walk.mayMatch(p['w'])) candidates.push(p);
    }
    lastSeen = postingKey(unseen[taken - 1]!);
    unseen = unseen.slice(taken);
    checked += candidates.length;
    const byId = new Map(candidates.map((p) => [p['template_id'] as string, postingKey(p)]));
    for (const item of await templatesInOrder([...byId.keys()], walk.keep)) matches.push({ item, posting: byId.get(item.id)! });
  }
  return { matches, unread: unseen.length > 0 || !ended, ...(lastSeen ? { lastSeen } : {}) };
}
