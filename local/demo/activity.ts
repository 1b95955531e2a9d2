/**
 * What a catalog has after a while, for the demo: installs and reviews from a few reviewer accounts
 * and two featured templates, so Featured, Trending and Top rated list something and the cards show
 * counts on a first start. Made through the real handlers, like the rest of the seed: installs are
 * idempotent, a review already written answers 409 and is left as it is. The demo user reviews
 * nothing (docs/client.md's program reviews with the second key, and nobody reviews twice), and the
 * samples' template (sample-uptime-check) is left untouched.
 */
import { createUserWithKey, findCallerByApiKey } from '../../lib/accounts/api-keys.ts';
import type { Caller } from '../../lib/core/caller.ts';

type CallRoute = (
  name: string,
  caller: Caller,
  init?: { params?: Record<string, string>; body?: unknown },
) => Promise<{ status: number; body: Record<string, unknown> }>;

/** Reviewer accounts: fixed keys, as public as the demo keys and never printed. */
const REVIEWERS = [
  { name: 'Ada (demo reviewer)', key: 'mk_demo-reviewer-1-of-the-local-runtime-only-never-valid-in-aws' },
  { name: 'Grace (demo reviewer)', key: 'mk_demo-reviewer-2-of-the-local-runtime-only-never-valid-in-aws' },
  { name: 'Linus (demo reviewer)', key: 'mk_demo-reviewer-3-of-the-local-runtime-only-never-valid-in-aws' },
] as const;

interface Review {
  rating: number;
  title: string;
  comment?: string;
}

/** Per template: who installs it (reviewer index, or 'second' for the second demo account) and what they say. */
const ACTIVITY: Record<string, Array<{ by: 0 | 1 | 2 | 'second'; review?: Review }>> = {
  'http-uptime-check': [
    {
      by: 'second',
      review: { rating: 5, title: 'Set up in a minute', comment: 'The `expected_status` default is what I wanted.' },
    },
    { by: 0, review: { rating: 5, title: 'Does one thing well' } },
    { by: 1, review: { rating: 4, title: 'Good', comment: 'A timeout variable would make it perfect.' } },
    { by: 2 },
  ],
  'code-review-delivered': [
    { by: 0, review: { rating: 4, title: 'Handy for outsourced reviews' } },
    {
      by: 2,
      review: { rating: 3, title: 'Works, needs more checks', comment: 'I would like a minimum of comments too.' },
    },
  ],
  'artifact-checksum': [{ by: 2, review: { rating: 5, title: 'Exactly what a release needs' } }],
  'dataset-row-count': [
    { by: 'second', review: { rating: 4, title: 'Simple and right' } },
    { by: 0, review: { rating: 2, title: 'CSV only in practice', comment: 'Parquet counts were off for me.' } },
    { by: 1 },
  ],
  'ai-summary-quality': [
    { by: 0, review: { rating: 5, title: 'Clear threshold' } },
    { by: 1, review: { rating: 4, title: 'Useful' } },
  ],
};

/** Not http-uptime-check: the featureTemplate sample features it, and must find it unfeatured to act. */
export const FEATURED_DEMO_SLUGS = ['dataset-row-count', 'ai-summary-quality'] as const;

async function reviewer(index: number): Promise<Caller> {
  const { name, key } = REVIEWERS[index]!;
  const found = await findCallerByApiKey(key);
  if (found) return found;
  await createUserWithKey({ name }, undefined, key);
  return (await findCallerByApiKey(key))!;
}

export async function seedDemoActivity(callRoute: CallRoute, demo: Caller, second: Caller): Promise<void> {
  const reviewers = [await reviewer(0), await reviewer(1), await reviewer(2)];
  for (const [slug, entries] of Object.entries(ACTIVITY)) {
    const found = await callRoute('getTemplate', demo, { params: { id: slug } });
    const id = String(found.body['id']);
    for (const { by, review } of entries) {
      const who = by === 'second' ? second : reviewers[by]!;
      const installed = await callRoute('installTemplate', who, { params: { id } });
      if (installed.status >= 300) throw new Error(`seeding an install of ${slug} failed: ${installed.status}`);
      if (!review) continue;
      const reviewed = await callRoute('createReview', who, { params: { id }, body: review });
      if (reviewed.status >= 300 && reviewed.status !== 409)
        throw new Error(`seeding a review of ${slug} failed: ${reviewed.status} ${JSON.stringify(reviewed.body)}`);
    }
  }
  for (const slug of FEATURED_DEMO_SLUGS) {
    const featured = await callRoute('featureTemplate', demo, { params: { id: slug } });
    if (featured.status >= 300) throw new Error(`featuring ${slug} failed: ${featured.status}`);
  }
}
