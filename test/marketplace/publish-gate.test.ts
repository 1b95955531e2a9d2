import { describe, expect, it } from 'vitest';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { detailPaths, expectError, publish, templateBody } from './helpers.ts';

// Built from parts so no credential-shaped string sits in the repository's text.
const STRIPE_KEY = ['sk_live_', '4eC39HqLyjWDarjtT1zdp7dc'].join('');
const leaky = {
  variables: [{ name: 'url', type: 'url' }],
  checks: [{ id: 'status', type: 'http_status', config: { url: '{{url}}', headers: { 'X-Key': STRIPE_KEY } } }],
};
const clean = {
  variables: [{ name: 'url', type: 'url' }],
  checks: [{ id: 'status', type: 'http_status', config: { url: '{{url}}', headers: { 'X-Key': '{{url}}' } } }],
};
const moderate = (operator: TestUser, body: Record<string, unknown>) =>
  invoke('moderate', { caller: operator, body: { reason: 'Checked by hand.', ...body } });
const seen = (caller: TestUser, id: string) => invoke('getTemplate', { caller, params: { id } });
const newVersion = (author: TestUser, id: string, version: string, schema: unknown) =>
  invoke('publishVersion', { caller: author, params: { id }, body: { version, schema } });

describe('publish gate', () => {
  it('holds a first publish with a secret: hidden, seen by its author and operators with the finding; released, it is listed', async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const res = await invoke('publishTemplate', { caller: author, body: templateBody({ schema: leaky }) });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({
      hidden: true,
      quarantine: {
        status: 'quarantined',
        findings: [
          { kind: 'secret', path: 'schema.checks.0.config.headers.X-Key', reason: 'Looks like a Stripe secret key.' },
        ],
      },
    });
    // The finding names where, never the value.
    expect(JSON.stringify(res.body.quarantine)).not.toContain(STRIPE_KEY);
    const id = res.body.id;
    expectError(await seen(other, id), 404, 'not_found');
    expect((await seen(author, id)).body.versions[0].quarantine.status).toBe('quarantined');
    expect((await seen(operator, id)).status).toBe(200);
    expectError(await invoke('installTemplate', { caller: other, params: { id } }), 404, 'not_found');

    // Only operators decide, and what is not held cannot be released.
    expectError(await moderate(author, { action: 'release', template_id: id }), 403, 'forbidden');
    const released = await moderate(operator, { action: 'release', template_id: id });
    expect(released.status, JSON.stringify(released.body)).toBe(201);
    expect(released.body).toMatchObject({ action: 'release', template_id: id, version: null, changed: true });
    const now = (await seen(other, id)).body;
    expect(now).toMatchObject({ hidden: false, quarantine: null });
    expect(now.versions[0].quarantine).toBeNull();
    expectError(await moderate(operator, { action: 'release', template_id: id }), 409, 'invalid_transition');
    const log = (await invoke('listModerationActions', { caller: operator, query: { limit: '100' } })).body.data;
    expect(log.find((a: any) => a.id === released.body.id)).toMatchObject({
      action: 'release',
      operator: { id: operator.userId },
    });
  });

  it('holds a later version: not current, hidden from others, not installable; rejected it stays held, fixed it is published', async () => {
    const author = await createTestUser();
    const other = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author, { schema: clean });
    const held = await newVersion(author, t.id, '1.1.0', leaky);
    expect(held.status, JSON.stringify(held.body)).toBe(201);
    expect(held.body.version).toBe('1.0.0');
    expect(held.body.versions[0]).toMatchObject({ version: '1.1.0', quarantine: { status: 'quarantined' } });
    expect((await seen(other, t.id)).body.versions.map((v: any) => v.version)).toEqual(['1.0.0']);
    expect(
      detailPaths(await invoke('installTemplate', { caller: other, params: { id: t.id }, body: { version: '1.1.0' } })),
    ).toEqual(['version']);
    expect(
      detailPaths(
        await invoke('compareVersions', { caller: other, params: { id: t.id }, query: { from: '1.0.0', to: '1.1.0' } }),
      ),
    ).toEqual(['to']);

    const rejected = await moderate(operator, { action: 'reject', template_id: t.id, version: '1.1.0' });
    expect(rejected.status, JSON.stringify(rejected.body)).toBe(201);
    expect((await seen(author, t.id)).body.versions[0].quarantine.status).toBe('rejected');
    // The author publishes the same version again, fixed: it replaces the held one and is current.
    const fixed = await newVersion(author, t.id, '1.1.0', clean);
    expect(fixed.status, JSON.stringify(fixed.body)).toBe(201);
    expect(fixed.body.version).toBe('1.1.0');
    expect(fixed.body.versions.map((v: any) => [v.version, v.quarantine])).toEqual([
      ['1.1.0', null],
      ['1.0.0', null],
    ]);
  });

  it('a released later version becomes current, as a publish does', async () => {
    const author = await createTestUser();
    const operator = await createTestUser({ operator: true });
    const t = await publish(author, { schema: clean });
    await newVersion(author, t.id, '2.0.0', leaky);
    expectError(
      await moderate(operator, { action: 'release', template_id: t.id, version: '1.0.0' }),
      409,
      'invalid_transition',
    );
    const res = await moderate(operator, { action: 'release', template_id: t.id, version: '2.0.0' });
    expect(res.body).toMatchObject({ action: 'release', version: '2.0.0', changed: true });
    const now = (await seen(await createTestUser(), t.id)).body;
    expect(now.version).toBe('2.0.0');
    expect(now.versions.map((v: any) => v.version)).toEqual(['2.0.0', '1.0.0']);
    expect(
      detailPaths(await moderate(operator, { action: 'release', template_id: t.id, reviewer_id: author.userId })),
    ).toContain('version');
  });

  it("holds a slug confusable with a verified publisher's, not the publisher's own", async () => {
    const verified = await createTestUser({ name: 'Quillfeather Labs' });
    const operator = await createTestUser({ operator: true });
    const suffix = Math.random().toString(36).slice(2, 8);
    const own = await publish(verified, { slug: `quillfeather-checks-${suffix}` });
    expect((await moderate(operator, { action: 'verify_author', author_id: verified.userId })).status).toBe(201);
    const impostor = await createTestUser();
    const copy = await invoke('publishTemplate', {
      caller: impostor,
      body: templateBody({ slug: `quillfeather-chekcs-${suffix}`.replace('chekcs', 'checkz') }),
    });
    expect(copy.body.quarantine?.findings).toEqual([
      { kind: 'impersonation', path: 'slug', reason: "Confusable with a verified publisher's name or slug." },
    ]);
    const byName = await invoke('publishTemplate', {
      caller: impostor,
      body: templateBody({ name: 'QuiIlfeather Labs' }),
    });
    expect(byName.body.quarantine?.findings.map((f: any) => f.path)).toEqual(['name']);
    // The publisher's own next template passes (their verified flag came with the key's next read).
    const mine = await invoke('publishTemplate', {
      caller: { ...verified, verified: true },
      body: templateBody({ slug: `quillfeather-checks-v2-${suffix}` }),
    });
    expect(mine.body.quarantine).toBeNull();
    expect(own.quarantine).toBeNull();
  });

  it('refuses new words of a listed template that the gate finds something in (no copy to hold), and keeps the old ones', async () => {
    const author = await createTestUser();
    const t = await publish(author, { description: 'Checks a URL.' });
    const res = await invoke('updateTemplate', {
      caller: author,
      params: { id: t.id },
      body: { description: `Use key ${STRIPE_KEY} to call it.` },
    });
    expectError(res, 400, 'validation_error');
    expect(res.body.error.details).toEqual([
      { path: 'description', message: 'The publish gate: Looks like a Stripe secret key.' },
    ]);
    expect((await seen(author, t.id)).body.description).toBe('Checks a URL.');
    expect(
      (
        await invoke('updateTemplate', {
          caller: author,
          params: { id: t.id },
          body: { description: 'Checks a URL, twice.' },
        })
      ).status,
    ).toBe(200);
  });
});
