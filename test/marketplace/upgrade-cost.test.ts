import { AsyncLocalStorage } from 'node:async_hooks';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { decorateAwsClients } from '../../lib/aws/client-hooks.ts';
import { noticePageOf } from '../../lib/marketplace/lifecycle/notice-page.ts';
import { NOTICE_PAGE_SIZE, runNoticePage } from '../../lib/marketplace/lifecycle/notices.ts';
import { db, tableName } from '../../lib/store/client.ts';
import * as keys from '../../lib/store/key-builders.ts';
import { createAgent } from '../events/support.ts';
import { createTestUser, invoke } from '../support/lambda.ts';
import { publish } from './helpers.ts';

/**
 * What a publish and its upgrade fan-out cost in DynamoDB capacity (ReturnConsumedCapacity=TOTAL,
 * as bench/cost.ts counts routes): docs/marketplace.md, "Pinned installs and upgrades", quotes these
 * figures and prices them. The bounds below are the budget written there, with headroom.
 */
type Units = { reads: number; writes: number; calls: number };
const counting = new AsyncLocalStorage<Units>();
const WRITES = /^(Put|Update|Delete|BatchWrite|TransactWrite)/;
decorateAwsClients((client, service) => {
  if (service !== 'dynamodb') return;
  (client as DynamoDBClient).middlewareStack.add(
    (next, context: { commandName?: string }) => async (args) => {
      const units = counting.getStore();
      if (units) (args.input as Record<string, unknown>)['ReturnConsumedCapacity'] = 'TOTAL';
      const result = await next(args);
      if (units) {
        const consumed = (
          result.output as { ConsumedCapacity?: { CapacityUnits?: number } | { CapacityUnits?: number }[] }
        ).ConsumedCapacity;
        const total = [consumed ?? []].flat().reduce((t, c) => t + (c.CapacityUnits ?? 0), 0);
        units[WRITES.test(context.commandName ?? '') ? 'writes' : 'reads'] += total;
        units.calls += 1;
      }
      return result;
    },
    { step: 'initialize', name: 'countUpgradeCapacity' },
  );
});
async function measured(fn: () => Promise<unknown>): Promise<Units> {
  const units = { reads: 0, writes: 0, calls: 0 };
  await counting.run(units, fn);
  return units;
}

const schema = (extra: object[] = []) => ({
  variables: [{ name: 'url', type: 'url' }, ...extra],
  checks: [{ id: 'up', type: 'http_status', config: { url: '{{url}}' } }],
});

describe('the cost of a publish and of its upgrade fan-out', () => {
  it(`stays inside its budget: a version publish, and a page of ${NOTICE_PAGE_SIZE} installs moved and told`, async () => {
    const author = await createTestUser();
    const t = await publish(author, { schema: schema() });
    const installers = await Promise.all(Array.from({ length: NOTICE_PAGE_SIZE }, () => createTestUser()));
    await Promise.all(
      installers.map(async (u) => {
        const agent = await createAgent(u);
        await invoke('setEventAgents', { caller: u, body: { agent_ids: [agent] } });
        await invoke('installTemplate', { caller: u, params: { id: t.id }, body: { policy: 'minor' } });
      }),
    );
    const publishUnits = await measured(() =>
      invoke('publishVersion', {
        caller: author,
        params: { id: t.id },
        body: { version: '1.1.0', schema: schema([{ name: 'timeout', type: 'integer', required: false }]) },
      }),
    );
    const { Items = [] } = await db().send(
      new QueryCommand({
        TableName: tableName(),
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :n)',
        ExpressionAttributeValues: { ':pk': keys.template(t.id).PK, ':n': 'NOTICE#' },
      }),
    );
    const pageUnits = await measured(() => runNoticePage(noticePageOf(Items[0]!)));
    const upgradeUnits = await measured(() =>
      invoke('upgradeInstall', { caller: installers[0]!, params: { template: t.id }, body: { version: '1.0.0' } }),
    );
    const perInstall = { reads: pageUnits.reads / NOTICE_PAGE_SIZE, writes: pageUnits.writes / NOTICE_PAGE_SIZE };
    process.stdout.write(
      `upgrade-cost: publishVersion ${JSON.stringify(publishUnits)}; page of ${NOTICE_PAGE_SIZE} ${JSON.stringify(pageUnits)}; per install ${JSON.stringify(perInstall)}; upgradeInstall ${JSON.stringify(upgradeUnits)}\n`,
    );
    // Budgets (docs/marketplace.md): a publish with its notice page, each install moved and told with one agent.
    expect(publishUnits.writes).toBeLessThanOrEqual(12);
    expect(perInstall.writes).toBeLessThanOrEqual(12);
    expect(perInstall.reads).toBeLessThanOrEqual(8);
    expect(upgradeUnits.writes).toBeLessThanOrEqual(8);
  });
});
