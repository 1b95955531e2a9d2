import { describe, expect, it } from 'vitest';
import { createTestUser } from '../support/lambda.ts';
import { useLocalApi } from '../support/local-api.ts';
import { indexSearch } from '../support/search-index.ts';
import { templateBody } from './helpers.ts';

const api = useLocalApi();
const base = () => `${api.url}/v1/marketplace`;
const auth = (key: string) => ({ authorization: `Bearer ${key}` });

describe('marketplace over HTTP with real API keys', () => {
  it('publishes and reads back a template (by Location and by slug), and lists it', async () => {
    const user = await createTestUser();
    const body = templateBody();
    const published = await fetch(`${base()}/templates`, {
      method: 'POST',
      headers: { ...auth(user.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    expect(published.status).toBe(201);
    expect(published.headers.get('x-request-id')).toBeTruthy();
    const template = (await published.json()) as any;
    const location = published.headers.get('location')!;
    expect(location).toBe(`/v1/marketplace/templates/${template.id}`);

    for (const path of [location, `/v1/marketplace/templates/${body['slug']}`]) {
      const read = await fetch(`${api.url}${path}`, { headers: auth(user.apiKey) });
      expect(read.status).toBe(200);
      // The reader published it: the page says so (viewer.author), and no review is asked of them.
      expect(await read.json()).toEqual({
        ...template,
        reviews: [],
        viewer: { author: true, installed: false, reviewed: false },
      });
    }
    const listed = (await (
      await fetch(`${base()}/templates?sort=recent&limit=5`, { headers: auth(user.apiKey) })
    ).json()) as any;
    expect(listed.data[0].id).toBe(template.id);
    await indexSearch(); // the stream's search indexer catches up
    const searched = (await (
      await fetch(`${base()}/templates?search=${encodeURIComponent('Uptime CHECK')}`, { headers: auth(user.apiKey) })
    ).json()) as any;
    expect(searched.data.map((s: any) => s.id)).toContain(template.id);
  });

  it('refuses a missing or unknown key with 401 on every marketplace route', async () => {
    const user = await createTestUser();
    const id = (
      (await (
        await fetch(`${base()}/templates`, {
          method: 'POST',
          headers: { ...auth(user.apiKey), 'content-type': 'application/json' },
          body: JSON.stringify(templateBody()),
        })
      ).json()) as any
    ).id;
    const calls: [string, string][] = [
      ['GET', '/templates'],
      ['GET', '/templates/featured'],
      ['GET', `/templates/${id}`],
      ['POST', '/templates'],
      ['POST', `/templates/${id}/install`],
      ['GET', '/installed'],
      ['GET', '/categories'],
      ['PUT', `/templates/${id}/featured`],
    ];
    for (const [method, path] of calls) {
      for (const headers of [{}, auth('mk_not-a-real-key')]) {
        const res = await fetch(`${base()}${path}`, { method, headers });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(await res.json()).toEqual({ error: { code: 'unauthorized', message: expect.any(String) } });
      }
    }
  });

  it("answers 404 for another user's private template on every route that names it", async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const res = await fetch(`${base()}/templates`, {
      method: 'POST',
      headers: { ...auth(author.apiKey), 'content-type': 'application/json' },
      body: JSON.stringify(templateBody({ visibility: 'private' })),
    });
    const { id, slug } = (await res.json()) as any;
    const json = { ...auth(other.apiKey), 'content-type': 'application/json' };
    const calls: [string, string, unknown?][] = [
      ['GET', `/templates/${id}`],
      ['GET', `/templates/${slug}`],
      ['POST', `/templates/${id}/install`],
      ['GET', `/templates/${id}/reviews`],
      ['POST', `/templates/${id}/reviews`, { rating: 5, title: 'x' }],
      ['PATCH', `/templates/${id}`, { name: 'x' }],
      ['POST', `/templates/${id}/versions`, { version: '2.0.0', schema: { checks: [], variables: [] } }],
    ];
    for (const [method, path, body] of calls) {
      const r = await fetch(`${base()}${path}`, {
        method,
        headers: json,
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      expect(r.status, `${method} ${path}`).toBe(404);
      expect(((await r.json()) as any).error.code).toBe('not_found');
    }
    expect((await fetch(`${base()}/templates/${id}`, { headers: auth(author.apiKey) })).status).toBe(200);
  });
});
