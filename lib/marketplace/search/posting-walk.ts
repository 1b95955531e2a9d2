/**
 * The walk of one search posting list (docs/marketplace.md, "Search"): postings in list order,
 * filtered on the words they carry, confirmed on their templates, within read budgets.
 */
import { templatesInOrder } from '../templates/store.ts';
import type { TemplateItem } from '../templates/template-item.ts';
import { readPostingPage } from './store.ts';

type Posting = Record<string, unknown>;
/**
 * Postings read by the first query that finishes a popularity bucket; each further query of the
 * same bucket reads twice as many (at most MAX_PAGE), so a wide bucket costs O(log width) round
 * trips, not width / 8, and at most about twice the postings it needed.
 */
const GROUP_LOOKAHEAD = 8;
const MAX_PAGE = 100;
const sortKeyOf = (p: Posting): string => p['SK'] as string;

export interface PostingWalk {
  partition: string;
  /** Read only postings whose sort key is below this (where a cursor resumes). */
  below?: string;
  /** Matches wanted (the page, what it skips, and one more to answer has_more). */
  want: number;
  /** Most read units to spend on postings (as DynamoDB reports them: a posting's size varies with its template's words). */
  postingUnits: number;
  /** Most templates to read. */
  checkBudget: number;
  /**
   * The group of a posting whose members are only in order once sorted by their templates (a
   * popularity bucket spanning several install counts), or undefined when the posting order is
   * the order. The walk reads a group whole before it stops, budgets or not.
   */
  groupOf: (sortKey: string) => string | undefined;
  /** False when a posting's words (`w`) rule its template out; postings without words are read. */
  mayMatch: (words: string) => boolean;
  /** Whether a template read is a match. */
  keep: (t: TemplateItem, sortKey: string) => boolean;
}

export interface WalkMatch {
  item: TemplateItem;
  sortKey: string;
  group: string | undefined;
}

/**
 * Reads one posting list from the top (highest sort key first) until `want` matches, the end of
 * the list, or a budget, stopping only between groups. Templates are read (one BatchGetItem per
 * round) only once the candidates taken could complete the page, so no template is read past it;
 * `lastSeen` is the last posting taken: the walk resumes right below it.
 */
export async function walkPostings(
  walk: PostingWalk,
): Promise<{ matches: WalkMatch[]; unread: boolean; lastSeen?: string }> {
  const matches: WalkMatch[] = [];
  let buffer: Posting[] = [];
  let pending: Posting[] = [];
  let next: Record<string, unknown> | undefined;
  let ended = false;
  let lastSeen: string | undefined;
  let group: string | undefined;
  let read = 0;
  let units = 0;
  let checked = 0;
  let overBudget = false;
  let groupReads = 0;

  const flush = async () => {
    const byId = new Map(pending.map((p) => [p['template_id'] as string, sortKeyOf(p)]));
    checked += pending.length;
    pending = [];
    for (const item of await templatesInOrder([...byId.keys()])) {
      const sortKey = byId.get(item.id)!;
      if (walk.keep(item, sortKey)) matches.push({ item, sortKey, group: walk.groupOf(sortKey) });
    }
  };

  for (;;) {
    const inGroup = group !== undefined;
    if (buffer.length === 0 && !ended) {
      if (!inGroup && units >= walk.postingUnits) break;
      overBudget = units >= walk.postingUnits;
      // Size the page from the share of postings that matched so far (postings are cheap, round trips
      // are not) and from what a posting has cost so far, so one page cannot overrun the budget by much.
      const perPosting = read === 0 ? 1 : Math.max(matches.length, 1) / read;
      const affordable =
        read === 0 ? 100 : Math.max(1, Math.floor(((walk.postingUnits - units) * read) / Math.max(units, 0.5)));
      const missing = Math.max(1, walk.want - matches.length - pending.length);
      // When the walk would stop but for the bucket it is in, only that bucket's end is missing:
      // usually a posting or two, so start with a few. Otherwise size the page as anywhere else.
      const finishingBucket =
        inGroup &&
        (overBudget || matches.length + pending.length >= walk.want || checked + pending.length >= walk.checkBudget);
      const limit = finishingBucket
        ? Math.min(MAX_PAGE, GROUP_LOOKAHEAD * 2 ** groupReads++)
        : Math.min(MAX_PAGE, affordable, Math.ceil(missing / perPosting));
      const page = await readPostingPage(walk.partition, walk.below, limit, next);
      buffer = page.items;
      read += buffer.length;
      units += page.units;
      next = page.next;
      ended = next === undefined;
      continue;
    }
    const posting = buffer[0];
    const postingGroup = posting ? walk.groupOf(sortKeyOf(posting)) : undefined;
    const boundary = !posting || postingGroup === undefined || postingGroup !== group;
    if (boundary) {
      group = undefined;
      groupReads = 0;
      if (!posting) break;
      if (matches.length + pending.length >= walk.want) await flush();
      // Postings read past the budget only to finish a bucket end the walk at the bucket's end.
      if (matches.length >= walk.want || checked + pending.length >= walk.checkBudget || overBudget) break;
    }
    buffer.shift();
    lastSeen = sortKeyOf(posting!);
    group = postingGroup;
    if (typeof posting!['w'] !== 'string' || walk.mayMatch(posting!['w'])) pending.push(posting!);
  }
  await flush();
  return { matches, unread: buffer.length > 0 || !ended, ...(lastSeen ? { lastSeen } : {}) };
}
