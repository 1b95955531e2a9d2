/** The push channel's request shapes (docs/api.md, "Push channel"). Strict: an unknown parameter or field is a 400. */
import { ID_PATTERN } from '../../core/ids.ts';
import * as z from '../../zod.ts';

/** The handshake's query: `?agent_id=agt_…[&after=evt_…]`. A malformed agent id is the same 404 as anyone else's agent. */
export const connectQuery = z.strictObject({
  agent_id: z.string().check(z.minLength(1), z.maxLength(64)),
  after: z.optional(z.string().check(z.regex(ID_PATTERN.evt, 'Expected an event id (evt_…) or a next_cursor.'))),
});

/** The one message a client sends: after connecting, and every PUSH.keepAliveSeconds. */
export const syncMessage = z.strictObject({ action: z.literal('sync') });
