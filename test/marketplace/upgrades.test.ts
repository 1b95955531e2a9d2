import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { type NoticePage, noticePageOf } from '../../lib/marketplace/lifecycle/notice-page.ts';
import { NOTICE_PAGE_SIZE, runNoticePage } from '../../lib/marketplace/lifecycle/notices.ts';
import {
  commitInstallMove,
  moveInstall,
  readInstallMarker,
  versionStillTakeable,
} from '../../lib/marketplace/lifecycle/store.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createAgent, feedOf } from '../events/support.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { detailPaths, expectError, publish } from './helpers.ts';

const url = { name: 'url', type: 'url' };
const check = (id: string) => ({ id, type: 'http_status', config: { url: '{{url}}' } });
const V1 = { variables: [url], checks: [check('up')] };
/** Not breaking against V1: an optional variable and a check more. */
const V1_1 = {
  variables: [url, { name: 'timeout', type: 'integer', required: false }],
  checks: [check('up'), check('tls')],
};
/** Breaking against V1: a required variable without a default. */
const V2 = { variables: [url, { name: 'token', type: 'string' }], checks: [check('up')] };

async function version(author: TestUser, id: string, v: string, schema: unknown, changelog?: string) {
  const res = await invoke('publishVersion', {
    caller: author,
    params: { id },
    body: { version: v, schema, ...(changelog ? { changelog } : {}) },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}
const install = (caller: TestUser, id: string, body?: unknown) =>
  invoke('installTemplate', { caller, params: { id }, ...(body ? { body } : {}) });
const installedOf = async (caller: TestUser, id: string) =>
  (await invoke('listInstalled', { caller })).body.data.find((t: any) => t.id === id).installation;
const yank = (author: TestUser, id: string, v: string) =>
  invoke('changeVersion', { caller: author, params: { id, version: v }, body: { yanked: true } });

/** The first pages of the template's published notices not run yet, oldest first (the relay's share, run here directly). */
async function noticePages(templateId: string, type = 'template.version.published'): Promise<NoticePage[]> {
  const res = await db().send(
    new QueryCommand({
      TableName: tableName(),
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :n)',
      ExpressionAttributeValues: { ':pk': keys.template(templateId).PK, ':n': 'NOTICE#' },
      ConsistentRead: true,
    }),
  );
  return (res.Items ?? [])
    .map(noticePageOf)
    .filter((p) => p.type === type)
    .sort((a, b) => a.created_at.localeCompare(b.created_at) || a.page - b.page);
}

describe('pinned installs', () => {
  it('install records the current version and `minor` by default, or the version and policy named', async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    await version(author, t.id, '1.1.0', V1_1);
    const a = await createTestUser();
    const first = await install(a, t.id);
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ version: '1.1.0', policy: 'minor' });
    const b = await createTestUser();
    expect((await install(b, t.id, { version: '1.0.0', policy: 'pinned' })).body).toMatchObject({
      version: '1.0.0',
      policy: 'pinned',
    });
    // A repeat answers the original record, whatever it names.
    const again = await install(b, t.id, { version: '1.1.0', policy: 'patch' });
    expect(again.status).toBe(200);
    expect(again.body).toMatchObject({ version: '1.0.0', policy: 'pinned' });

    const c = await createTestUser();
    expect(detailPaths(await install(c, t.id, { version: '0.9.0' }))).toEqual(['version']);
    expect(detailPaths(await install(c, t.id, { policy: 'major' }))).toEqual(['policy']);
    expect(detailPaths(await install(c, t.id, { version: '1.0' }))).toEqual(['version']);
    expect((await yank(author, t.id, '1.0.0')).status).toBe(200);
    expectError(await install(c, t.id, { version: '1.0.0' }), 409, 'template_yanked');
  });

  it('GET /installed shows the version, the newest its policy allows and the newest overall; a yanked pin says so', async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    await version(author, t.id, '1.1.0', V1_1);
    await version(author, t.id, '1.1.1', V1_1);
    await version(author, t.id, '2.0.0', V2);
    const pinned = await createTestUser();
    const patch = await createTestUser();
    const minor = await createTestUser();
    await install(pinned, t.id, { version: '1.0.0', policy: 'pinned' });
    await install(patch, t.id, { version: '1.1.0', policy: 'patch' });
    await install(minor, t.id, { version: '1.0.0', policy: 'minor' });
    const base = { version_yanked: false, newest: '2.0.0', behind: true, installed_at: expect.any(String) };
    expect(await installedOf(pinned, t.id)).toEqual({
      ...base,
      version: '1.0.0',
      policy: 'pinned',
      newest_allowed: '1.0.0',
    });
    expect(await installedOf(patch, t.id)).toEqual({
      ...base,
      version: '1.1.0',
      policy: 'patch',
      newest_allowed: '1.1.1',
    });
    expect(await installedOf(minor, t.id)).toEqual({
      ...base,
      version: '1.0.0',
      policy: 'minor',
      newest_allowed: '1.1.1',
    });

    await yank(author, t.id, '1.1.1');
    await yank(author, t.id, '1.0.0');
    expect(await installedOf(pinned, t.id)).toMatchObject({ version_yanked: true, newest_allowed: null });
    expect(await installedOf(minor, t.id)).toMatchObject({ version_yanked: true, newest_allowed: '1.1.0' });
    expect(await installedOf(patch, t.id)).toMatchObject({ version_yanked: false, newest_allowed: '1.1.0' });
  });

  it("contracts are made from the workspace's installed version unless one is named; a yanked pin keeps working", async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    await version(author, t.id, '2.0.0', V2);
    const buyer = await createTestUser();
    const agent = await createAgent(buyer);
    await install(buyer, t.id, { version: '1.0.0', policy: 'pinned' });
    const contract = (extra: Record<string, unknown> = {}, variables: Record<string, unknown> = {}) =>
      invoke('createContract', {
        caller: buyer,
        body: {
          template_id: t.id,
          variables: { url: 'https://example.com', ...variables },
          amount_cents: 100,
          agent_id: agent,
          ...extra,
        },
      });
    const pinnedOne = await contract();
    expect(pinnedOne.status, JSON.stringify(pinnedOne.body)).toBe(201);
    expect(pinnedOne.body.template_version).toBe('1.0.0');
    // 2.0.0 needs `token`: named, it is refused without it and made with it.
    expect(detailPaths(await contract({ template_version: '2.0.0' }))).toContain('variables.token');
    expect((await contract({ template_version: '2.0.0' }, { token: 't' })).body.template_version).toBe('2.0.0');

    // Not installed: the current version, as before.
    const other = await createTestUser();
    const otherAgent = await createAgent(other);
    const current = await invoke('createContract', {
      caller: other,
      body: {
        template_id: t.id,
        variables: { url: 'https://example.com', token: 't' },
        amount_cents: 100,
        agent_id: otherAgent,
      },
    });
    expect(current.body.template_version).toBe('2.0.0');

    expect((await yank(author, t.id, '1.0.0')).status).toBe(200);
    expect((await contract()).body.template_version).toBe('1.0.0');
    const named = await invoke('createContract', {
      caller: other,
      body: {
        template_id: t.id,
        template_version: '1.0.0',
        variables: { url: 'https://example.com' },
        amount_cents: 100,
        agent_id: otherAgent,
      },
    });
    expectError(named, 409, 'template_yanked');
  });
});

describe('GET /templates/:id/compare', () => {
  it('gives the computed diff, whether it is breaking, and the changelogs between', async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    await version(author, t.id, '1.1.0', V1_1, 'TLS check added.');
    await version(author, t.id, '2.0.0', V2, 'Needs a token now.');
    const reader = await createTestUser();
    const res = await invoke('compareVersions', { caller: reader, params: { id: t.id }, query: { from: '1.0.0' } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({
      template_id: t.id,
      from: '1.0.0',
      to: '2.0.0',
      summary: 'variables +1 -0 ~0, checks +0 -0 ~0 (breaking)',
      changelog: [
        { version: '2.0.0', changelog: 'Needs a token now.' },
        { version: '1.1.0', changelog: 'TLS check added.' },
      ],
      diff: {
        variables: { added: ['token'], removed: [], changed: [] },
        checks: { added: [], removed: [], changed: [] },
        breaking: true,
        breaking_reasons: ['variable token: added, required, without a default'],
      },
    });
    const minor = await invoke('compareVersions', {
      caller: reader,
      params: { id: t.id },
      query: { from: '1.0.0', to: '1.1.0' },
    });
    expect(minor.body.diff.breaking).toBe(false);
    expect(minor.body.diff.checks.added).toEqual(['tls']);
    const back = await invoke('compareVersions', {
      caller: reader,
      params: { id: t.id },
      query: { from: '1.1.0', to: '1.0.0' },
    });
    expect(back.body.diff.breaking_reasons).toEqual(['variable timeout: removed', 'check tls: removed']);
    expect(back.body.changelog).toEqual([{ version: '1.1.0', changelog: 'TLS check added.' }]);
    expect(
      detailPaths(await invoke('compareVersions', { caller: reader, params: { id: t.id }, query: { from: '3.0.0' } })),
    ).toEqual(['from']);
    expect(detailPaths(await invoke('compareVersions', { caller: reader, params: { id: t.id }, query: {} }))).toEqual([
      'from',
    ]);
  });
});

describe('POST /installed/:template/upgrade', () => {
  it('moves to the newest version the policy allows, or the one named (breaking too), and answers with the diff', async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    const user = await createTestUser();
    await install(user, t.id, { policy: 'minor' });
    await version(author, t.id, '1.1.0', V1_1);
    await version(author, t.id, '2.0.0', V2);
    const up = (body: unknown = {}) => invoke('upgradeInstall', { caller: user, params: { template: t.slug }, body });

    const res = await up();
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      from_version: '1.0.0',
      changed: true,
      installation: { version: '1.1.0', policy: 'minor' },
    });
    expect(res.body.diff).toMatchObject({ breaking: false, checks: { added: ['tls'] } });
    expect((await up()).body).toMatchObject({ changed: false, installation: { version: '1.1.0' } });

    const major = await up({ version: '2.0.0' });
    expect(major.body).toMatchObject({
      from_version: '1.1.0',
      installation: { version: '2.0.0' },
      diff: { breaking: true },
    });
    const rollback = await up({ version: '1.0.0', policy: 'pinned' });
    expect(rollback.body.installation).toMatchObject({ version: '1.0.0', policy: 'pinned' });
    expect(await installedOf(user, t.id)).toMatchObject({
      version: '1.0.0',
      policy: 'pinned',
      newest_allowed: '1.0.0',
    });

    await yank(author, t.id, '1.1.0');
    expectError(await up({ version: '1.1.0' }), 409, 'template_yanked');
    expect(detailPaths(await up({ version: '9.9.9' }))).toEqual(['version']);
    expectError(
      await invoke('upgradeInstall', { caller: await createTestUser(), params: { template: t.id }, body: {} }),
      404,
      'not_found',
    );
  });
});

describe('upgrade by policy on publish', () => {
  it('moves minor and patch installs to a non-breaking version, never pinned ones or to a breaking one; chosen agents hear of it', async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    const minor = await createTestUser();
    const pinned = await createTestUser();
    const agent = await createAgent(minor);
    await invoke('setEventAgents', { caller: minor, body: { agent_ids: [agent] } });
    await install(minor, t.id, { policy: 'minor' });
    await install(pinned, t.id, { policy: 'pinned' });

    await version(author, t.id, '1.1.0', V1_1);
    const [page] = await noticePages(t.id);
    await runNoticePage(page!);
    expect((await readInstallMarker(minor.workspaceId, t.id))?.['version']).toBe('1.1.0');
    expect((await readInstallMarker(pinned.workspaceId, t.id))?.['version']).toBe('1.0.0');
    const events = (await feedOf(minor, agent)).filter((e) => e.type === 'template.version.published');
    expect(events.map((e) => e.data)).toEqual([
      {
        template_id: t.id,
        template_name: t.name,
        version: '1.1.0',
        previous_version: '1.0.0',
        summary: 'variables +1 -0 ~0, checks +1 -0 ~0',
        breaking: false,
        upgraded: { from: '1.0.0', to: '1.1.0' },
      },
    ]);
    // The page run again (the stream hands a failed batch over again) moves and tells nobody twice.
    await runNoticePage(page!);
    expect((await feedOf(minor, agent)).filter((e) => e.type === 'template.version.published')).toHaveLength(1);
    expect((await readInstallMarker(minor.workspaceId, t.id))?.['moves']).toBe(1);

    // 1.2.0 is breaking against 1.1.0 (a required variable): told, not moved.
    await version(author, t.id, '1.2.0', {
      ...V2,
      checks: V1_1.checks,
      variables: [...V1_1.variables, V2.variables[1]],
    });
    const second = (await noticePages(t.id)).find((p) => p.data.version === '1.2.0')!;
    await runNoticePage(second);
    expect((await readInstallMarker(minor.workspaceId, t.id))?.['version']).toBe('1.1.0');
    const told = (await feedOf(minor, agent)).find((e) => e.data.version === '1.2.0');
    expect(told.data).toMatchObject({ breaking: true, upgraded: null });
    expect(told.data.summary).toMatch(/\(breaking\)$/);
  });

  it('under concurrent publishes no install moves twice, and none moves to a yanked version', async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    const users = await Promise.all(Array.from({ length: 6 }, () => createTestUser()));
    await Promise.all(users.map((u) => install(u, t.id, { policy: 'minor' })));
    // Two versions published back to back; their fan-outs run at once, each resolving its target when it runs.
    await version(author, t.id, '1.1.0', V1_1);
    await version(author, t.id, '1.2.0', V1_1);
    const pages = await noticePages(t.id);
    expect(pages.map((p) => p.data.version)).toEqual(['1.1.0', '1.2.0']);
    await Promise.all(pages.map((p) => runNoticePage(p)));
    const newest = '1.2.0';
    for (const u of users) {
      const marker = await readInstallMarker(u.workspaceId, t.id);
      expect(marker?.['version']).toBe(newest);
      expect(marker?.['moves']).toBe(1);
    }
  });

  it('never moves an install to a version yanked before its page runs, nor past a yank that races it', async () => {
    // A template's gate starts 2 notices per window: one template per pair of pages here.
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    const users = await Promise.all(Array.from({ length: 6 }, () => createTestUser()));
    await Promise.all(users.map((u) => install(u, t.id, { policy: 'minor' })));
    await version(author, t.id, '1.1.0', V1_1);
    await yank(author, t.id, '1.1.0');
    const [early] = await noticePages(t.id);
    await runNoticePage(early!);
    for (const u of users) expect((await readInstallMarker(u.workspaceId, t.id))?.['version']).toBe('1.0.0');

    await version(author, t.id, '1.2.0', V1_1);
    const racing = (await noticePages(t.id)).find((p) => p.data.version === '1.2.0')!;
    const [, yanked] = await Promise.all([runNoticePage(racing), yank(author, t.id, '1.2.0')]);
    expect(yanked.status).toBe(200);
    // Either outcome of the race, each install moved at most once; and once the yank has committed, a
    // move to it is refused by the move's own ConditionCheck, however late its target was resolved.
    for (const u of users) {
      const marker = await readInstallMarker(u.workspaceId, t.id);
      expect(['1.0.0', '1.2.0']).toContain(marker?.['version']);
      expect(Number(marker?.['moves'] ?? 0)).toBeLessThanOrEqual(1);
      const late = await commitInstallMove([
        moveInstall(u.workspaceId, t.id, {
          from: marker!['version'] as string,
          to: '1.2.0',
          policy: 'minor',
          by: 'late',
          at: new Date().toISOString(),
        }),
        versionStillTakeable(t.id, '1.2.0'),
      ]);
      expect(late.ok).toBe(false);
      expect((await readInstallMarker(u.workspaceId, t.id))?.['version']).toBe(marker?.['version']);
    }
    // The page run again after the yank moves nobody still at 1.0.0.
    const stayed = (await Promise.all(users.map((u) => readInstallMarker(u.workspaceId, t.id)))).filter(
      (m) => m?.['version'] === '1.0.0',
    ).length;
    await runNoticePage(racing);
    expect(
      (await Promise.all(users.map((u) => readInstallMarker(u.workspaceId, t.id)))).filter(
        (m) => m?.['version'] === '1.0.0',
      ),
    ).toHaveLength(stayed);
  });

  it(`is bounded: a page moves at most ${NOTICE_PAGE_SIZE} installs, then writes the next page`, async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: V1 });
    const users = await Promise.all(Array.from({ length: NOTICE_PAGE_SIZE + 3 }, () => createTestUser()));
    await Promise.all(users.map((u) => install(u, t.id, { policy: 'patch' })));
    await version(author, t.id, '1.0.1', V1);
    const [first] = await noticePages(t.id);
    await runNoticePage(first!);
    const moved = async () =>
      (await Promise.all(users.map((u) => readInstallMarker(u.workspaceId, t.id)))).filter(
        (m) => m?.['version'] === '1.0.1',
      ).length;
    expect(await moved()).toBe(NOTICE_PAGE_SIZE);
    const next = (await noticePages(t.id)).find((p) => p.page === 1)!;
    expect(next.notice_id).toBe(first!.notice_id);
    await runNoticePage(next);
    expect(await moved()).toBe(users.length);
  });
});
