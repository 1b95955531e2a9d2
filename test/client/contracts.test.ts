import { describe, expect, it } from 'vitest';
import { ApiError, type FeedEvent } from '../../client/index.ts';
import { useLocalApi } from '../support/local-api.ts';
import { clientForNewUser } from './support/local-client.ts';
import { templateInput } from './support/template-input.ts';

const api = useLocalApi();

const codeOf = (call: Promise<unknown>) =>
  call.then(
    () => 'succeeded',
    (e: unknown) => (e instanceof ApiError ? `${e.status} ${e.code}` : String(e)),
  );

async function contractParties() {
  const { client: buyer } = await clientForNewUser(api.url);
  const { client: seller } = await clientForNewUser(api.url);
  const template = await seller.templates.publish(templateInput());
  const buyerAgent = await buyer.agents.create({ name: 'buyer' });
  const sellerAgent = await seller.agents.create({ name: 'seller' });
  return { buyer, seller, template, buyerAgent, sellerAgent };
}

describe('client: contracts and their events against the local API', () => {
  it('instantiates a template into a contract and takes it through fund → verification → release', async () => {
    const { buyer, seller, template, buyerAgent, sellerAgent } = await contractParties();
    const contract = await buyer.templates.instantiate(template.id, {
      variables: { url: 'https://shop.example.com/health' },
      amount_cents: 12_500,
      agent_id: buyerAgent.id,
      seller_agent_id: sellerAgent.id,
    });
    expect(contract).toMatchObject({
      id: expect.stringMatching(/^ctr_/),
      template_id: template.id,
      template_version: '1.0.0',
      agent_id: buyerAgent.id,
      seller_agent_id: sellerAgent.id,
      variables: { url: 'https://shop.example.com/health', attempts: 3 },
      amount_cents: 12_500,
      status: 'CREATED',
      checks: [{ id: 'status', type: 'http_status', config: { url: 'https://shop.example.com/health', expect: 200 } }],
    });
    expect(await seller.contracts.get(contract.id)).toEqual(contract);

    expect((await buyer.contracts.fund(contract.id)).status).toBe('FUNDED');
    // The seller reports the checks of its work; only the buyer releases the money (docs/events.md).
    expect(
      (await seller.contracts.recordVerification(contract.id, { passed: true, results: { status: 200 } })).status,
    ).toBe('VERIFIED');
    expect(await codeOf(seller.contracts.release(contract.id))).toBe('403 forbidden');
    expect((await buyer.contracts.release(contract.id)).status).toBe('RELEASED');
    expect(await codeOf(buyer.contracts.refund(contract.id))).toBe('409 invalid_transition');
    expect((await seller.templates.get(template.id)).stats.contracts_created).toBe(1);

    // Each party agent has its own copy of every event.
    for (const [client, agent] of [
      [buyer, buyerAgent],
      [seller, sellerAgent],
    ] as const) {
      const events: FeedEvent[] = [];
      for await (const e of client.events.iterate(agent.id, { limit: 2 })) events.push(e);
      expect(events.map((e) => e.type)).toEqual([
        'contract.funded',
        'contract.verification.completed',
        'contract.released',
      ]);
      expect(
        events.every((e) => e.agent_id === agent.id && 'contract_id' in e.data && e.data.contract_id === contract.id),
      ).toBe(true);
      expect(events[0]!.data).toMatchObject({ amount_cents: 12_500 });
    }
  });

  it('lists the caller’s contracts with filters, page by page', async () => {
    const { buyer, template, buyerAgent } = await contractParties();
    const first = await buyer.templates.instantiate(template.id, {
      variables: { url: 'https://a.example' },
      amount_cents: 1,
      agent_id: buyerAgent.id,
    });
    const second = await buyer.templates.instantiate(template.id, {
      variables: { url: 'https://b.example' },
      amount_cents: 2,
      agent_id: buyerAgent.id,
    });
    await buyer.contracts.fund(first.id);
    expect((await buyer.contracts.list()).data.map((c) => c.id)).toEqual([second.id, first.id]);
    expect(
      (await buyer.contracts.list({ status: 'FUNDED', agent_id: buyerAgent.id })).data.map((c) => [c.id, c.status]),
    ).toEqual([[first.id, 'FUNDED']]);
    const all = [];
    for await (const contract of buyer.contracts.iterate({ limit: 1 })) all.push(contract.id);
    expect(all).toEqual([second.id, first.id]);
  });

  it('creates with contracts.create too, and refunds after a failed verification', async () => {
    const { buyer, seller, template, buyerAgent } = await contractParties();
    const contract = await buyer.contracts.create({
      template_id: template.id,
      variables: { url: 'https://a.example' },
      amount_cents: 1,
      agent_id: buyerAgent.id,
    });
    expect(contract.seller_agent_id).toBeNull();
    await buyer.contracts.fund(contract.id);
    expect((await seller.contracts.recordVerification(contract.id, { passed: false })).status).toBe(
      'VERIFICATION_FAILED',
    );
    expect((await buyer.contracts.refund(contract.id)).status).toBe('REFUNDED');
    const page = await buyer.events.list(buyerAgent.id);
    expect(page.data.map((e) => e.type)).toEqual([
      'contract.funded',
      'contract.verification.completed',
      'contract.refunded',
    ]);
    expect(page.next_cursor).toBe(page.data[2]!.id);
    expect(await buyer.events.list(buyerAgent.id, { after: page.next_cursor! })).toEqual({
      data: [],
      next_cursor: page.next_cursor,
    });
  });

  it('refuses bad variables with details, and hides other accounts’ contracts', async () => {
    const { buyer, template, buyerAgent } = await contractParties();
    const err = await buyer.templates
      .instantiate(template.id, { variables: { nope: 1 }, amount_cents: 100, agent_id: buyerAgent.id })
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 'validation_error' });
    expect((err as ApiError).details!.length).toBeGreaterThan(0);

    const contract = await buyer.templates.instantiate(template.id, {
      variables: { url: 'https://b.example' },
      amount_cents: 100,
      agent_id: buyerAgent.id,
    });
    const { client: stranger } = await clientForNewUser(api.url);
    expect(await codeOf(stranger.contracts.get(contract.id))).toBe('404 not_found');
    expect(await codeOf(stranger.contracts.fund(contract.id))).toBe('404 not_found');
  });
});
