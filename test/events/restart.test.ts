import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type EventPipeline, startEventPipeline } from '../../local/emulators/event-pipeline.ts';
import { createTestUser, invoke, type TestUser } from '../support/lambda.ts';
import { scratchDir } from '../support/scratch-dir.ts';
import {
  configureWebhook,
  createAgent,
  createContract,
  deliveriesOf,
  enableWebhook,
  publishTemplate,
  SIMPLE_SCHEMA,
  startWebhookReceiver,
  waitFor,
} from './support.ts';

/**
 * "The process dies after the transaction and before the relay runs": the pipeline is simply not
 * running when the transition commits. Whatever was in memory is gone; the table's stream still
 * has the outbox row, and the next pipeline (same data folder) delivers it.
 */
process.env['DELIVERY_RETRY_DELAYS_SECONDS'] = '0,2,2';

let owner: TestUser;
let templateId: string;
let running: EventPipeline | undefined;

beforeAll(async () => {
  owner = await createTestUser();
  templateId = await publishTemplate(owner, SIMPLE_SCHEMA);
});

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

const start = (dataDir: string) =>
  startEventPipeline({
    tableName: process.env['TABLE_NAME']!,
    dynamoEndpoint: process.env['DYNAMODB_ENDPOINT']!,
    dataDir,
  }).then((p) => (running = p));
const stop = async () => {
  await running?.stop();
  running = undefined;
};

describe('no event is lost to a process that dies', () => {
  it('committed while nothing ran: delivered once the pipeline starts', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded', 'contract.released']);
    const contractId = await createContract(owner, agentId, templateId);
    expect((await invoke('fundContract', { caller: owner, params: { id: contractId } })).status).toBe(200);

    await start(scratchDir('pipeline-'));
    const delivery = await waitFor(() => receiver.deliveries[0], 'the delivery after start');
    expect(delivery.json).toMatchObject({ type: 'contract.funded', data: { contract_id: contractId } });
  });

  it('committed between a stop and a restart: delivered after the restart, earlier events not sent again', async () => {
    const dataDir = scratchDir('pipeline-');
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded', 'contract.released']);
    const contractId = await createContract(owner, agentId, templateId);

    await start(dataDir);
    await invoke('fundContract', { caller: owner, params: { id: contractId } });
    await waitFor(() => receiver.deliveries[0], 'the first delivery');
    await stop();

    expect((await invoke('releaseContract', { caller: owner, params: { id: contractId } })).status).toBe(200);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.deliveries).toHaveLength(1);

    await start(dataDir);
    await waitFor(() => receiver.deliveries[1], 'the delivery after the restart');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.deliveries.map((d) => d.json.type)).toEqual(['contract.funded', 'contract.released']);
  });

  it('a retry waiting in the queue survives a restart (persisted queue) and is delivered after it', async () => {
    const dataDir = scratchDir('pipeline-');
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await enableWebhook(owner, agentId, receiver.url, ['contract.funded']);
    receiver.answer = () => 500;
    await start(dataDir);
    await invoke('fundContract', { caller: owner, params: { id: await createContract(owner, agentId, templateId) } });
    await waitFor(() => receiver.deliveries[0], 'the first, failing attempt');
    await stop();

    receiver.answer = () => 200;
    await start(dataDir);
    await waitFor(() => receiver.deliveries[1], 'the retry after the restart');
    const [record] = await waitFor(async () => {
      const list = await deliveriesOf(owner, agentId);
      return list[0]?.status === 'succeeded' ? list : undefined;
    }, 'success');
    expect(record).toMatchObject({ attempts: 2, last_status_code: 200 });
    expect(receiver.deliveries[1]!.json.id).toBe(receiver.deliveries[0]!.json.id);
  });

  it('an event from while the webhook was PENDING_VERIFICATION stays undelivered even if the relay only runs after verification', async () => {
    const receiver = await startWebhookReceiver();
    const agentId = await createAgent(owner);
    await configureWebhook(owner, agentId, receiver.url, ['contract.funded']);
    const early = await createContract(owner, agentId, templateId);
    await invoke('fundContract', { caller: owner, params: { id: early } });
    expect((await invoke('verifyWebhook', { caller: owner, params: { id: agentId } })).status).toBe(200);
    const later = await createContract(owner, agentId, templateId);
    await invoke('fundContract', { caller: owner, params: { id: later } });

    await start(scratchDir('pipeline-'));
    await waitFor(() => receiver.deliveries[0], 'the delivery of the later event');
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.deliveries.map((d) => d.json.data.contract_id)).toEqual([later]);
  });
});
