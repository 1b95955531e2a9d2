import { describe, expect, it } from 'vitest';
import { findCallerByApiKey } from '../../lib/accounts/api-keys.ts';
import { REPORT_LIMITS } from '../../lib/core/settings.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { indexSearch } from '../support/search-index.ts';
import { expectError, publish } from './helpers.ts';

const report = (caller: TestUser, body: Record<string, unknown>) => invoke('createReport', { caller, body });
const act = (caller: TestUser, body: Record<string, unknown>) => invoke('moderate', { caller, body });
const openReports = async (operator: TestUser) =>
  (await invoke('listReports', { caller: operator, query: { limit: '100' } })).body.data as any[];
const httpCount = async (caller: TestUser) =>
  (await invoke('listCategories', { caller })).body.data.find((c: any) => c.name === 'http').count as number;

describe('reports', () => {
  it('one open report per reporter and item, also under 6 concurrent tries; operators list them', async () => {
    const author = await createTestUser();
    const reporter = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author);
    const body = { template_id: t.id, reason: 'impersonation', text: 'Claims to be the official one.' };
    const tries = await Promise.all(Array.from({ length: 6 }, () => report(reporter, body)));
    expect(tries.map((r) => r.status).sort()).toEqual([201, ...Array(5).fill(409)]);
    for (const r of tries.filter((r) => r.status === 409)) expectError(r, 409, 'report_exists');
    const mine = (await openReports(operator)).filter((r) => r.template_id === t.id);
    expect(mine).toEqual([
      {
        id: expect.any(String),
        template_id: t.id,
        reviewer_id: null,
        reporter_id: reporter.userId,
        reason: 'impersonation',
        text: 'Claims to be the official one.',
        status: 'open',
        created_at: expect.stringMatching(/Z$/),
      },
    ]);
    // Another reporter of the same item, and the same reporter of a review, are other reports.
    expect((await report(await createTestUser(), body)).status).toBe(201);
    const reviewer = await createTestUser();
    await invoke('createReview', { caller: reviewer, params: { id: t.id }, body: { rating: 5, title: 'Mine' } });
    expect((await report(reporter, { ...body, reviewer_id: reviewer.userId, reason: 'spam' })).status).toBe(201);
    expectError(await invoke('listReports', { caller: reporter }), 403, 'forbidden');
  });

  it(`is rate limited: ${REPORT_LIMITS.perWindow} per user per window, then 429 with Retry-After`, async () => {
    const author = await createTestUser();
    const reporter = await createTestUser();
    const templates = await Promise.all(Array.from({ length: REPORT_LIMITS.perWindow + 1 }, () => publish(author)));
    const answers = [];
    for (const t of templates) answers.push(await report(reporter, { template_id: t.id, reason: 'spam', text: 'x' }));
    expect(answers.slice(0, -1).map((r) => r.status)).toEqual(Array(REPORT_LIMITS.perWindow).fill(201));
    expectError(answers.at(-1)!, 429, 'rate_limited');
    expect(Number(answers.at(-1)!.headers['retry-after'])).toBeGreaterThan(0);
    // Someone else is not held up.
    expect(
      (await report(await createTestUser(), { template_id: templates[0]!.id, reason: 'spam', text: 'x' })).status,
    ).toBe(201);
  });

  it('404 for what the reporter cannot see or what does not exist; 400 for a reason off the list', async () => {
    const author = await createTestUser();
    const reporter = await createTestUser();
    const priv = await publish(author, { visibility: 'private' });
    const t = await publish(author);
    expectError(await report(reporter, { template_id: priv.id, reason: 'spam', text: 'x' }), 404, 'not_found');
    expectError(
      await report(reporter, { template_id: t.id, reviewer_id: reporter.userId, reason: 'spam', text: 'x' }),
      404,
      'not_found',
    );
    expectError(await report(reporter, { template_id: t.id, reason: 'boring', text: 'x' }), 400, 'validation_error');
    expectError(await report(reporter, { template_id: t.id, reason: 'spam', text: '' }), 400, 'validation_error');
  });
});

describe('moderation', () => {
  it('hiding a template: gone from lists, search, details and counts for all but its author and operators; restore brings it back; audit trail', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const operator = await createTestUser({ operator: true, name: 'Olga Operator' });
    const word = `zq${Date.now().toString(36)}`;
    const t = await publish(author, { name: `Fake ${word} checker` });
    await report(user, { template_id: t.id, reason: 'malware', text: 'Posts secrets.' });
    await indexSearch();
    const before = await httpCount(user);
    const hidden = await act(operator, { action: 'hide', template_id: t.id, reason: 'Malware confirmed.' });
    expect(hidden.status, JSON.stringify(hidden.body)).toBe(201);
    expect(hidden.body).toMatchObject({
      action: 'hide',
      changed: true,
      reports_closed: 1,
      operator: { id: operator.userId, name: 'Olga Operator' },
    });
    await indexSearch();

    expectError(await invoke('getTemplate', { caller: user, params: { id: t.id } }), 404, 'not_found');
    expect((await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.hidden).toBe(true);
    expect((await invoke('getTemplate', { caller: operator, params: { id: t.id } })).status).toBe(200);
    const listed = (await invoke('listTemplates', { caller: user, query: { sort: 'recent', limit: '100' } })).body.data;
    expect(listed.map((x: any) => x.id)).not.toContain(t.id);
    const found = (await invoke('listTemplates', { caller: user, query: { search: word } })).body;
    expect(found.data).toEqual([]);
    expect(await httpCount(user)).toBe(before - 1);
    expectError(await invoke('installTemplate', { caller: user, params: { id: t.id } }), 404, 'not_found');
    expect((await openReports(operator)).filter((r) => r.template_id === t.id)).toEqual([]);

    const again = await act(operator, { action: 'hide', template_id: t.id, reason: 'Twice.' });
    expect(again.body.changed).toBe(false);
    expect(await httpCount(user)).toBe(before - 1);

    const restored = await act(operator, { action: 'restore', template_id: t.id, reason: 'Author fixed it.' });
    expect(restored.body.changed).toBe(true);
    await indexSearch();
    expect((await invoke('getTemplate', { caller: user, params: { id: t.id } })).status).toBe(200);
    expect(
      (await invoke('listTemplates', { caller: user, query: { search: word } })).body.data.map((x: any) => x.id),
    ).toEqual([t.id]);
    expect(await httpCount(user)).toBe(before);

    const trail = (await invoke('listModerationActions', { caller: operator, query: { limit: '100' } })).body.data;
    const mine = trail.filter((a: any) => a.template_id === t.id).map((a: any) => [a.action, a.reason, a.changed]);
    expect(mine).toEqual([
      ['restore', 'Author fixed it.', true],
      ['hide', 'Twice.', false],
      ['hide', 'Malware confirmed.', true],
    ]);
    expectError(await invoke('listModerationActions', { caller: author }), 403, 'forbidden');
    expectError(await act(author, { action: 'hide', template_id: t.id, reason: 'Mine.' }), 403, 'forbidden');
  }, 120_000); // the search indexer runs over the stream three times

  it('hiding a review takes it out of the list (but for its writer and operators, marked) and the rating exactly once under 8 concurrent hides; restore puts it back', async () => {
    const author = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author);
    const fair = await createTestUser();
    const abuser = await createTestUser();
    await invoke('createReview', { caller: fair, params: { id: t.id }, body: { rating: 5, title: 'Works' } });
    await invoke('createReview', {
      caller: abuser,
      params: { id: t.id },
      body: { rating: 1, title: 'Paid to say so' },
    });
    const rating = async () => (await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.stats;
    expect(await rating()).toMatchObject({ rating_avg: 3, rating_count: 2 });

    const hides = await Promise.all(
      Array.from({ length: 8 }, () =>
        act(operator, { action: 'hide', template_id: t.id, reviewer_id: abuser.userId, reason: 'Ranking abuse.' }),
      ),
    );
    expect(hides.map((r) => r.status)).toEqual(Array(8).fill(201));
    expect(hides.filter((r) => r.body.changed)).toHaveLength(1);
    expect(await rating()).toMatchObject({ rating_avg: 5, rating_count: 1 });
    const listed = async (caller: TestUser, query?: Record<string, string>) =>
      (await invoke('listReviews', { caller, params: { id: t.id }, ...(query ? { query } : {}) })).body;
    const reviews = await listed(fair);
    expect(reviews.data.map((r: any) => r.user.id)).toEqual([fair.userId]);
    expect(reviews.pagination.total).toBe(1);
    // Its writer and operators still see it, marked and ahead of the first page; not on later pages.
    for (const caller of [abuser, operator]) {
      const seen = await listed(caller);
      expect(seen.data.map((r: any) => [r.user.id, r.hidden])).toEqual([
        [abuser.userId, true],
        [fair.userId, undefined],
      ]);
      expect(seen.pagination.total).toBe(1);
      expect((await listed(caller, { offset: '1' })).data).toEqual([]);
    }
    // Their one review still exists: no second one to game the rating again.
    expectError(
      await invoke('createReview', { caller: abuser, params: { id: t.id }, body: { rating: 1, title: 'Again' } }),
      409,
      'review_exists',
    );

    await act(operator, { action: 'restore', template_id: t.id, reviewer_id: abuser.userId, reason: 'Appeal upheld.' });
    expect(await rating()).toMatchObject({ rating_avg: 3, rating_count: 2 });
    for (const caller of [fair, abuser, operator]) {
      const back = (await listed(caller)).data;
      expect(back.map((r: any) => r.user.id).sort()).toEqual([fair.userId, abuser.userId].sort());
      expect(back.every((r: any) => !('hidden' in r))).toBe(true);
    }
  });

  it('dismiss closes the open reports only; verify_author marks the author and their templates verified', async () => {
    const author = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author);
    const reporters = await Promise.all(Array.from({ length: 3 }, () => createTestUser()));
    await Promise.all(reporters.map((r) => report(r, { template_id: t.id, reason: 'other', text: 'Looks off.' })));
    const dismissed = await act(operator, { action: 'dismiss', template_id: t.id, reason: 'Nothing wrong.' });
    expect(dismissed.body).toMatchObject({ action: 'dismiss', reports_closed: 3 });
    expect((await openReports(operator)).filter((r) => r.template_id === t.id)).toEqual([]);
    // Closed, so the reporter may report it again.
    expect((await report(reporters[0]!, { template_id: t.id, reason: 'spam', text: 'Again.' })).status).toBe(201);

    expect(t.author.verified).toBe(false);
    const verified = await act(operator, { action: 'verify_author', author_id: author.userId, reason: 'ID checked.' });
    expect(verified.body).toMatchObject({ action: 'verify_author', author_id: author.userId, changed: true });
    expect((await invoke('getTemplate', { caller: operator, params: { id: t.id } })).body.author.verified).toBe(true);
    // The key carries it too, so what the author publishes next is verified.
    expect((await findCallerByApiKey(author.apiKey))?.verified).toBe(true);
    expect((await publish(author)).author.verified).toBe(false); // `author` holds the caller read before
    expect((await publish({ ...author, ...(await findCallerByApiKey(author.apiKey))! })).author.verified).toBe(true);
    expectError(
      await act(operator, { action: 'verify_author', author_id: '00000000-0000-4000-8000-000000000000', reason: 'x' }),
      404,
      'not_found',
    );
    expectError(
      await act(operator, { action: 'verify_author', template_id: t.id, reason: 'x' }),
      400,
      'validation_error',
    );
    expectError(await act(operator, { action: 'hide', reason: 'x' }), 400, 'validation_error');
  });
});
