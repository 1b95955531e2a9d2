import type { Transport } from '../http/transport.ts';
import { AGENTS_BASE, path } from '../http/url.ts';
import { paginate } from '../pagination.ts';
import type {
  Agent,
  ConfiguredAgent,
  ConfigureWebhookInput,
  CreateAgentInput,
  CreateDestinationInput,
  CreatedDestination,
  CreatePortalLinkInput,
  Destination,
  Filter,
  FilterTest,
  FilterTestInput,
  ListAgentsParams,
  PortalLink,
  RotateSecretInput,
  TestEventAccepted,
  WebhookSecret,
} from '../types/agents.ts';
import type { CursorPage } from '../types/common.ts';
import type { CallOptions } from './call-options.ts';

const a = (relativePath: string) => AGENTS_BASE + relativePath;

/** `/api/v1/agents`: the caller's agents and their webhook configuration. */
export class Agents {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  async create(input: CreateAgentInput, options: CallOptions = {}): Promise<Agent> {
    return this.http.body<Agent>({ method: 'POST', path: a('/agents'), body: input, signal: options.signal });
  }

  /** One page of the caller's own agents. */
  async list(params: ListAgentsParams = {}, options: CallOptions = {}): Promise<CursorPage<Agent>> {
    return this.http.body<CursorPage<Agent>>({
      method: 'GET',
      path: a('/agents'),
      query: { ...params },
      signal: options.signal,
    });
  }

  /** Every agent of the caller, a page at a time. */
  iterate(
    params: Omit<ListAgentsParams, 'cursor'> = {},
    options: CallOptions = {},
  ): AsyncGenerator<Agent, void, undefined> {
    return paginate(async (cursor) => {
      const page = await this.list({ ...params, cursor }, options);
      return { items: page.data, nextCursor: page.next_cursor };
    });
  }

  async get(id: string, options: CallOptions = {}): Promise<Agent> {
    return this.http.body<Agent>({ method: 'GET', path: a(path`/agents/${id}`), signal: options.signal });
  }

  /**
   * Sets the URL and event kinds; the webhook is then PENDING_VERIFICATION until `verifyWebhook`
   * succeeds. The first configuration of an agent also returns `webhook_secret`.
   */
  async configureWebhook(
    id: string,
    input: ConfigureWebhookInput,
    options: CallOptions = {},
  ): Promise<ConfiguredAgent> {
    return this.http.body<ConfiguredAgent>({
      method: 'PATCH',
      path: a(path`/agents/${id}/webhook`),
      body: input,
      signal: options.signal,
    });
  }

  /** Back to DISABLED, URL cleared. */
  async disableWebhook(id: string, options: CallOptions = {}): Promise<Agent> {
    return this.http.body<Agent>({ method: 'DELETE', path: a(path`/agents/${id}/webhook`), signal: options.signal });
  }

  async getWebhookSecret(id: string, options: CallOptions = {}): Promise<WebhookSecret> {
    return this.http.body<WebhookSecret>({
      method: 'GET',
      path: a(path`/agents/${id}/webhook/secret`),
      signal: options.signal,
    });
  }

  /** Deletes the agent: its webhook stops, it frees a place under the 100-agent cap, and it is 404 from then on. */
  async delete(id: string, options: CallOptions = {}): Promise<void> {
    await this.http.body<undefined>({ method: 'DELETE', path: a(path`/agents/${id}`), signal: options.signal });
  }

  /**
   * A new secret; deliveries are signed with it from now on, and with the previous one too (in
   * `webhook-signature`) for `expire_previous_in_seconds` (0–86400, default 86400). Not retried (a
   * repeat would rotate twice).
   */
  async rotateWebhookSecret(
    id: string,
    input: RotateSecretInput = {},
    options: CallOptions = {},
  ): Promise<WebhookSecret> {
    return this.http.body<WebhookSecret>({
      method: 'POST',
      path: a(path`/agents/${id}/webhook/secret/rotate`),
      body: input,
      signal: options.signal,
    });
  }

  /**
   * Runs the handshake: the service POSTs a challenge to the endpoint and waits up to 10 s for it
   * to be echoed. Resolves with the agent ENABLED; a failure throws ApiError 422 with code
   * `verification_timeout`, `challenge_mismatch`, `endpoint_error` or `url_validation_error`.
   */
  async verifyWebhook(id: string, options: CallOptions = {}): Promise<Agent> {
    return this.http.body<Agent>({
      method: 'POST',
      path: a(path`/agents/${id}/webhook/verify`),
      signal: options.signal,
    });
  }

  /**
   * Sends a signed `service.webhook.test` event (`data: {}`) to the ENABLED webhook, whatever kinds
   * it subscribes to; it is in the feed and the delivery list. 409 `webhook_not_configured` unless
   * ENABLED. Not retried automatically (a repeat sends a second test event).
   */
  async sendTestEvent(id: string, options: CallOptions = {}): Promise<TestEventAccepted> {
    return this.http.body<TestEventAccepted>({
      method: 'POST',
      path: a(path`/agents/${id}/webhook/test`),
      signal: options.signal,
    });
  }

  /** Sets (or with `null` removes) the webhook's content filter; no new handshake. Applies to events made after it. */
  async setWebhookFilter(id: string, filter: Filter | null, options: CallOptions = {}): Promise<Agent> {
    return this.http.body<Agent>({
      method: 'PUT',
      path: a(path`/agents/${id}/webhook/filter`),
      body: { filter },
      signal: options.signal,
    });
  }

  /** Sets (or with `null` removes) an AWS destination's content filter. */
  async setDestinationFilter(
    id: string,
    destinationId: string,
    filter: Filter | null,
    options: CallOptions = {},
  ): Promise<Destination> {
    return this.http.body<Destination>({
      method: 'PUT',
      path: a(path`/agents/${id}/destinations/${destinationId}/filter`),
      body: { filter },
      signal: options.signal,
    });
  }

  /**
   * Tests a content filter (or the subscription's own) against an event as the webhook or a
   * destination would receive it; says which clause failed. Changes nothing.
   */
  async testFilter(id: string, input: FilterTestInput = {}, options: CallOptions = {}): Promise<FilterTest> {
    return this.http.body<FilterTest>({
      method: 'POST',
      path: a(path`/agents/${id}/filters/test`),
      body: input,
      signal: options.signal,
    });
  }

  /**
   * A link to the agent's portal page with a token that may call only this agent's portal routes,
   * for at most an hour (`expires_in_seconds`). Needs the owner's API key; a link cannot make links.
   */
  async createPortalLink(
    id: string,
    input: CreatePortalLinkInput = {},
    options: CallOptions = {},
  ): Promise<PortalLink> {
    return this.http.body<PortalLink>({
      method: 'POST',
      path: a(path`/agents/${id}/portal-links`),
      body: input,
      signal: options.signal,
    });
  }

  /** Revokes a portal link at once (idempotent). */
  async revokePortalLink(id: string, linkId: string, options: CallOptions = {}): Promise<void> {
    await this.http.body<undefined>({
      method: 'DELETE',
      path: a(path`/agents/${id}/portal-links/${linkId}`),
      signal: options.signal,
    });
  }

  /**
   * Adds an SQS queue or EventBridge bus of your AWS account (at most 5 per agent). It is
   * PENDING_VERIFICATION: apply its `policy` to the queue or bus, then post the code of the
   * verification message with `verifyDestination`. `signing_secret` is only in this answer.
   */
  async createDestination(
    id: string,
    input: CreateDestinationInput,
    options: CallOptions = {},
  ): Promise<CreatedDestination> {
    return this.http.body<CreatedDestination>({
      method: 'POST',
      path: a(path`/agents/${id}/destinations`),
      body: input,
      signal: options.signal,
    });
  }

  async listDestinations(id: string, options: CallOptions = {}): Promise<{ data: Destination[] }> {
    return this.http.body<{ data: Destination[] }>({
      method: 'GET',
      path: a(path`/agents/${id}/destinations`),
      signal: options.signal,
    });
  }

  async getDestination(id: string, destinationId: string, options: CallOptions = {}): Promise<Destination> {
    return this.http.body<Destination>({
      method: 'GET',
      path: a(path`/agents/${id}/destinations/${destinationId}`),
      signal: options.signal,
    });
  }

  async deleteDestination(id: string, destinationId: string, options: CallOptions = {}): Promise<void> {
    await this.http.body<undefined>({
      method: 'DELETE',
      path: a(path`/agents/${id}/destinations/${destinationId}`),
      signal: options.signal,
    });
  }

  /**
   * Posts the code of the verification message; resolves with the destination ENABLED. A wrong code
   * throws ApiError 422 `verification_code_mismatch`; an expired or used-up one (or none yet) 422
   * `verification_code_expired`, and a new message is sent.
   */
  async verifyDestination(
    id: string,
    destinationId: string,
    code: string,
    options: CallOptions = {},
  ): Promise<Destination> {
    return this.http.body<Destination>({
      method: 'POST',
      path: a(path`/agents/${id}/destinations/${destinationId}/verify`),
      body: { code },
      signal: options.signal,
    });
  }
}
