/**
 * One page of a version notice (notice-page.ts), run by the relay: each installer workspace of the
 * page gets the event on the agents it chose (event-agents.ts), through the outbox like every
 * event, so it reaches their feeds, streams and subscribed webhooks. The workspace's receipt of the
 * notice commits with its events: a page run again (the stream retries a failed batch) tells no
 * workspace twice. Then the next page is written, if there are more installers. A notice's first
 * page passes the notice gate first (notice-gate.ts): past the template's notices per window it
 * waits for the window's end instead of telling anyone now.
 */
import { expiresAt } from '../../core/event-retention.ts';
import { commitWithEvents } from '../../events/feed/outbox.ts';
import { tableName } from '../../store/client.ts';
import { ENTITY, lifecycleKeys } from '../../store/keys.ts';
import { readEventAgents } from './event-agents.ts';
import { admitNotice } from './notice-gate.ts';
import type { NoticePage } from './notice-page.ts';
import { type PolicyMove, upgradeByPolicy } from './policy-upgrade.ts';
import { installersPage, putNextNoticePage, readInstallMarker } from './store.ts';

/** Installers one page tells; a page is one relay invocation's work, so it stays well inside its timeout. */
export const NOTICE_PAGE_SIZE = 25;
const PARALLEL = 5;

export async function runNoticePage(page: NoticePage): Promise<void> {
  if (page.page === 0 && !(await admitNotice(page))) return;
  const res = await installersPage(page.template_id, page.after, NOTICE_PAGE_SIZE);
  const workspaces = res.items.map((i) => i['workspace_id'] as string);
  const queue = [...workspaces];
  const worker = async () => {
    for (let ws = queue.shift(); ws; ws = queue.shift()) await tellWorkspace(ws, page);
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  const last = res.items.at(-1);
  if (res.more && last) {
    const next = await putNextNoticePage({ ...page, page: page.page + 1, after: last['SK'] as string });
    // Refused: this page ran before and wrote its successor already.
    if (!next.ok && next.reasons[0] !== 'ConditionalCheckFailed') throw new Error('next notice page not written');
  }
}

async function tellWorkspace(workspaceId: string, page: NoticePage): Promise<void> {
  let upgraded: PolicyMove | undefined;
  if (page.type === 'template.version.published') {
    // Installed since the version was published: it installed that version or a later one, nothing to hear.
    const marker = await readInstallMarker(workspaceId, page.template_id);
    if (!marker || (marker['installed_at'] as string) > page.created_at) return;
    // The install moves by its policy first, whether or not anyone is told.
    upgraded = await upgradeByPolicy(workspaceId, page.template_id, page.notice_id, marker);
  }
  const chosen = await readEventAgents(workspaceId);
  if (chosen.agent_ids.length === 0) return;
  await commitWithEvents(
    () => ({
      Put: {
        TableName: tableName(),
        Item: {
          ...lifecycleKeys.noticeReceipt(workspaceId, page.notice_id),
          entity: ENTITY.noticeReceipt,
          template_id: page.template_id,
          type: page.type,
          expires_at: expiresAt(page.created_at),
        },
        ConditionExpression: 'attribute_not_exists(PK)',
      },
    }),
    {
      agentIds: chosen.agent_ids,
      type: page.type,
      data: { ...page.data, ...(upgraded === undefined ? {} : { upgraded }) },
    },
  );
}
