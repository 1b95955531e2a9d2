import { pushUrlOf } from './http/push-socket.ts';
import { Transport } from './http/transport.ts';
import { serviceRoot } from './http/url.ts';
import { Agents } from './resources/agents.ts';
import { Categories } from './resources/categories.ts';
import { Contracts } from './resources/contracts.ts';
import { Deliveries } from './resources/deliveries.ts';
import { EventTypes } from './resources/event-types.ts';
import { Events } from './resources/events.ts';
import { Moderation } from './resources/moderation.ts';
import { Reviews } from './resources/reviews.ts';
import { Templates } from './resources/templates.ts';

export interface MarketplaceClientOptions {
  /** Sent as `Authorization: Bearer <API_KEY>`. */
  apiKey: string;
  /** The service host, e.g. `https://api.example.com`; default `http://localhost:3000` (`npm start`). */
  baseUrl?: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Per attempt, until the whole answer is in (for the event stream: until it starts). Default 30 000: webhook verification alone may take 10 s. */
  timeoutMs?: number;
  /** Retries of a repeatable request after 429, 5xx or a network error. Default 2. */
  maxRetries?: number;
  /**
   * The push channel's WebSocket URL (`events.subscribe`). Default: `baseUrl` as ws(s) with `/push`,
   * where `npm start` serves it; a deployed stage's is its `PushUrl` output.
   */
  pushUrl?: string;
}

export const DEFAULT_BASE_URL = 'http://localhost:3000';
export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_RETRIES = 2;

/** The typed client of the template marketplace, agents, events and contracts. */
export class MarketplaceClient {
  readonly templates: Templates;
  readonly reviews: Reviews;
  readonly moderation: Moderation;
  readonly categories: Categories;
  readonly agents: Agents;
  readonly events: Events;
  readonly deliveries: Deliveries;
  readonly eventTypes: EventTypes;
  readonly contracts: Contracts;

  constructor(options: MarketplaceClientOptions) {
    if (typeof options?.apiKey !== 'string' || options.apiKey.trim() === '')
      throw new TypeError('MarketplaceClient needs an apiKey.');
    const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
    const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new TypeError('maxRetries must be a whole number ≥ 0.');
    if (!(timeoutMs > 0)) throw new TypeError('timeoutMs must be > 0.');
    const http = new Transport({
      apiKey: options.apiKey,
      root: serviceRoot(options.baseUrl ?? DEFAULT_BASE_URL),
      fetch: options.fetch ?? globalThis.fetch.bind(globalThis),
      timeoutMs,
      maxRetries,
    });
    this.contracts = new Contracts(http);
    this.templates = new Templates(http, this.contracts);
    this.reviews = new Reviews(http);
    this.moderation = new Moderation(http);
    this.categories = new Categories(http);
    this.agents = new Agents(http);
    const root = serviceRoot(options.baseUrl ?? DEFAULT_BASE_URL);
    this.events = new Events(http, maxRetries, { url: options.pushUrl ?? pushUrlOf(root), apiKey: options.apiKey });
    this.deliveries = new Deliveries(http);
    this.eventTypes = new EventTypes(http);
  }
}
