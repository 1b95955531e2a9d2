import type { Transport } from '../http/transport.ts';
import { AGENTS_BASE, path } from '../http/url.ts';
import { paginate } from '../pagination.ts';
import type { Delivery, DeliveryDetail, ListDeliveriesParams, RetryDeliveryInput } from '../types/agents.ts';
import type { CursorPage } from '../types/common.ts';
import type { CallOptions } from './call-options.ts';

/** `/api/v1/agents/:id/deliveries`: webhook delivery attempts, for inspection and manual retry. */
export class Deliveries {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  /** One page, newest first. */
  async list(
    agentId: string,
    params: ListDeliveriesParams = {},
    options: CallOptions = {},
  ): Promise<CursorPage<Delivery>> {
    return this.http.body<CursorPage<Delivery>>({
      method: 'GET',
      path: AGENTS_BASE + path`/agents/${agentId}/deliveries`,
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Every delivery, newest first, a page at a time. */
  iterate(
    agentId: string,
    params: Omit<ListDeliveriesParams, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Delivery, void, undefined> {
    return paginate(async (cursor) => {
      const page = await this.list(agentId, { ...params, cursor }, options);
      return { items: page.data, nextCursor: page.next_cursor };
    });
  }

  /** One delivery with every attempt (status code, error kind, the first 1 KiB of the answer), oldest first. */
  async get(agentId: string, deliveryId: string, options: CallOptions = {}): Promise<DeliveryDetail> {
    return this.http.body<DeliveryDetail>({
      method: 'GET',
      path: AGENTS_BASE + path`/agents/${agentId}/deliveries/${deliveryId}`,
      signal: options.signal,
    });
  }

  /**
   * One extra attempt now (202): a pending delivery keeps its scheduled attempts, a failed one goes
   * back to `pending` for it, a succeeded one is 409 `invalid_transition` unless `{ force: true }`.
   * 409 `webhook_not_configured` unless the webhook is ENABLED. Not retried automatically: a repeat sends it twice.
   */
  async retry(
    agentId: string,
    deliveryId: string,
    input: RetryDeliveryInput = {},
    options: CallOptions = {},
  ): Promise<Delivery> {
    return this.http.body<Delivery>({
      method: 'POST',
      path: AGENTS_BASE + path`/agents/${agentId}/deliveries/${deliveryId}/retry`,
      ...(input.force ? { body: { force: true } } : {}),
      signal: options.signal,
    });
  }
}
