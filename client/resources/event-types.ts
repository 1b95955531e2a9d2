import type { Transport } from '../http/transport.ts';
import { AGENTS_BASE } from '../http/url.ts';
import type { EventTypeList } from '../types/agents.ts';
import type { CallOptions } from './call-options.ts';

/** `/api/v1/event-types`: the event catalog (the route needs no key; the client sends its key anyway). */
export class EventTypes {
  private readonly http: Transport;

  constructor(http: Transport) {
    this.http = http;
  }

  /** Every event kind: whether a webhook can subscribe to it, and the JSON Schema of its event object. */
  async list(options: CallOptions = {}): Promise<EventTypeList> {
    return this.http.body<EventTypeList>({ method: 'GET', path: `${AGENTS_BASE}/event-types`, signal: options.signal });
  }
}
