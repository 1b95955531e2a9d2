import { describe, expect, it } from 'vitest';
import { createTestUser, invoke } from '../support/lambda.ts';
import { expectError, publish } from './helpers.ts';

const review = (rating: number, title = 'Solid') => ({ rating, title, comment: 'Worked for us.' });

describe('POST /templates/:id/reviews', () => {
  it('creates a review (201) and updates stats at once', async () => {
    const author = await createTestUser();
    const user = await createTestUser({ name: 'Rita' });
    const t = await publish(author);
    const res = await invoke('createReview', { caller: user, params: { id: t.slug }, body: review(4) });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      user: { id: user.userId, name: 'Rita' },
      rating: 4,
      title: 'Solid',
      comment: 'Worked for us.',
      created_at: expect.stringMatching(/Z$/),
    });
    const details = (await invoke('getTemplate', { caller: user, params: { id: t.id } })).body;
    expect(details.stats).toMatchObject({ rating_avg: 4, rating_count: 1 });
    expect(details.reviews).toEqual([res.body]);
  });

  it('409 review_exists on a second review, 403 on your own, 404 on a private one', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await publish(author);
    const priv = await publish(author, { visibility: 'private' });
    expect((await invoke('createReview', { caller: user, params: { id: t.id }, body: review(5) })).status).toBe(201);
    expectError(
      await invoke('createReview', { caller: user, params: { id: t.id }, body: review(1) }),
      409,
      'review_exists',
    );
    expectError(
      await invoke('createReview', { caller: author, params: { id: t.id }, body: review(5) }),
      403,
      'forbidden',
    );
    expectError(
      await invoke('createReview', { caller: user, params: { id: priv.id }, body: review(5) }),
      404,
      'not_found',
    );
  });

  it('validates rating, title and comment', async () => {
    const author = await createTestUser();
    const user = await createTestUser();
    const t = await publish(author);
    const cases: [unknown, string][] = [
      [{ rating: 0, title: 'x' }, 'rating'],
      [{ rating: 6, title: 'x' }, 'rating'],
      [{ rating: 4.5, title: 'x' }, 'rating'],
      [{ rating: '5', title: 'x' }, 'rating'],
      [{ rating: 5 }, 'title'],
      [{ rating: 5, title: '' }, 'title'],
      [{ rating: 5, title: 'x'.repeat(101) }, 'title'],
      [{ rating: 5, title: 'x', comment: 'x'.repeat(2001) }, 'comment'],
      [{ rating: 5, title: 'x', stars: 5 }, 'stars'],
    ];
    for (const [body, path] of cases) {
      const res = await invoke('createReview', { caller: user, params: { id: t.id }, body });
      expectError(res, 400, 'validation_error');
      expect(res.body.error.details.map((d: any) => d.path)).toEqual([path]);
    }
  });

  it('keeps count and average exact under 50 concurrent reviews, and one user racing twice gets one', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const users = await Promise.all(Array.from({ length: 50 }, () => createTestUser()));
    const ratings = users.map((_, i) => (i % 5) + 1 - (i % 7 === 0 ? 1 : 0) || 1);
    const results = await Promise.all(
      users.map((u, i) => invoke('createReview', { caller: u, params: { id: t.id }, body: review(ratings[i]!) })),
    );
    // Every answer a 201; any other shows with its body, so a failure names its cause.
    expect(results.filter((r) => r.status !== 201).map((r) => ({ status: r.status, body: r.body }))).toEqual([]);
    expect(results).toHaveLength(50);
    const expectedAvg = Math.round((ratings.reduce((a, b) => a + b, 0) / 50) * 100) / 100;
    const stats = (await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.stats;
    expect(stats).toMatchObject({ rating_count: 50, rating_avg: expectedAvg });

    const twice = await Promise.all(
      [0, 1, 2].map(() => invoke('createReview', { caller: users[0]!, params: { id: t.id }, body: review(3) })),
    );
    expect(twice.map((r) => r.status)).toEqual([409, 409, 409]);
    const solo = await createTestUser();
    const race = await Promise.all(
      [0, 1, 2, 3].map(() => invoke('createReview', { caller: solo, params: { id: t.id }, body: review(2) })),
    );
    expect(race.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    expect((await invoke('getTemplate', { caller: author, params: { id: t.id } })).body.stats.rating_count).toBe(51);

    // The sort key derived from the counters caught up too: rating order matches the averages.
    const top = (await invoke('featuredTemplates', { caller: author })).body.top_rated;
    expect(top.map((s: any) => s.id)).toContain(t.id);
  });
});

describe('GET /templates/:id/reviews', () => {
  it('pages newest first with total, offset and cursor; details show the newest 20', async () => {
    const author = await createTestUser();
    const t = await publish(author);
    const users = await Promise.all(Array.from({ length: 23 }, () => createTestUser()));
    const ids: string[] = [];
    for (const [i, u] of users.entries())
      ids.unshift(
        (await invoke('createReview', { caller: u, params: { id: t.id }, body: review((i % 5) + 1, `Review ${i}`) }))
          .body.id,
      );

    const first = await invoke('listReviews', { caller: author, params: { id: t.id }, query: { limit: '10' } });
    expect(first.body.data.map((r: any) => r.id)).toEqual(ids.slice(0, 10));
    expect(first.body.pagination).toEqual({
      limit: 10,
      offset: 0,
      total: 23,
      has_more: true,
      next_cursor: expect.any(String),
    });
    const second = await invoke('listReviews', {
      caller: author,
      params: { id: t.id },
      query: { limit: '10', cursor: first.body.pagination.next_cursor },
    });
    expect(second.body.data.map((r: any) => r.id)).toEqual(ids.slice(10, 20));
    expect(second.body.pagination.offset).toBe(10);
    const third = await invoke('listReviews', {
      caller: author,
      params: { id: t.id },
      query: { limit: '10', offset: '20' },
    });
    expect(third.body.data.map((r: any) => r.id)).toEqual(ids.slice(20));
    expect(third.body.pagination).toMatchObject({ has_more: false, next_cursor: null });

    const details = (await invoke('getTemplate', { caller: author, params: { id: t.id } })).body;
    expect(details.reviews.map((r: any) => r.id)).toEqual(ids.slice(0, 20));

    const other = await publish(author);
    const wrongScope = await invoke('listReviews', {
      caller: author,
      params: { id: other.id },
      query: { cursor: first.body.pagination.next_cursor },
    });
    expectError(wrongScope, 400, 'validation_error');
    expect(wrongScope.body.error.details[0].path).toBe('cursor');
  });

  it('hides the reviews of a private template from others', async () => {
    const author = await createTestUser();
    const t = await publish(author, { visibility: 'private' });
    expectError(
      await invoke('listReviews', { caller: await createTestUser(), params: { id: t.id } }),
      404,
      'not_found',
    );
    expect((await invoke('listReviews', { caller: author, params: { id: t.id } })).status).toBe(200);
  });
});
