import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pushUrlOf } from '../../client/http/push-socket.ts';
import type { AgentRecord } from '../../lib/agents/model.ts';
import { PUSH } from '../../lib/core/settings.ts';
import { afterPosition, eventIdAt } from '../../lib/events/feed/position.ts';
import { readFilled } from '../../lib/events/feed/reader.ts';
import { connectionVerdict } from '../../lib/events/push/message-limit.ts';
import {
  matchesAnyFilter,
  matchesFilter,
  PUSH_FILTER_PATTERN,
  RELAY_STREAM_FILTERS,
} from '../../lib/events/stream-filter.ts';
import { handshakeKey } from '../../lib/http/socket-route.ts';
import { ENTITY } from '../../lib/store/keys.ts';

/** The push channel's pure parts: where the key comes from, the client's URL, which stream records wake the worker. */
describe('push channel, pure parts', () => {
  it('takes the key from Authorization: Bearer, else from a key.<API key> subprotocol, and lists what was offered', () => {
    expect(handshakeKey({ 'sec-websocket-protocol': 'events.v1, key.mk_abc' })).toEqual({
      key: 'mk_abc',
      offered: ['events.v1', 'key.mk_abc'],
    });
    expect(handshakeKey({ authorization: 'Bearer mk_header', 'sec-websocket-protocol': 'key.mk_other' }).key).toBe(
      'mk_header',
    );
    expect(handshakeKey({})).toEqual({ key: undefined, offered: [] });
    expect(handshakeKey({ 'sec-websocket-protocol': 'events.v1' }).key).toBeUndefined();
  });

  it("makes the client's push URL from the service root: ws(s), the stage prefix kept, /push", () => {
    expect(pushUrlOf('http://localhost:3000')).toBe('ws://localhost:3000/push');
    expect(pushUrlOf('https://abc.execute-api.eu-west-1.amazonaws.com/prod')).toBe(
      'wss://abc.execute-api.eu-west-1.amazonaws.com/prod/push',
    );
  });

  it('hands the push worker new feed slots only: event rows and gap markers, not their changes or other items; the relay reads both kinds', () => {
    const record = (eventName: string, entity: string) => ({
      eventName,
      dynamodb: { NewImage: { entity: { S: entity }, agent_id: { S: 'agt_X' } } },
    });
    expect(matchesFilter(record('INSERT', 'event'), PUSH_FILTER_PATTERN)).toBe(true);
    expect(matchesFilter(record('INSERT', 'feedGap'), PUSH_FILTER_PATTERN)).toBe(true);
    expect(matchesFilter(record('MODIFY', 'event'), PUSH_FILTER_PATTERN)).toBe(false);
    expect(matchesFilter(record('INSERT', 'pushConnections'), PUSH_FILTER_PATTERN)).toBe(false);
    expect(matchesFilter(record('INSERT', 'delivery'), PUSH_FILTER_PATTERN)).toBe(false);
    // The relay's event source carries both patterns: an event whose webhook was off (no `deliver`) still
    // reaches it, for the push; a delivery record reaches neither.
    expect(matchesAnyFilter(record('INSERT', 'event'), RELAY_STREAM_FILTERS)).toBe(true);
    expect(matchesAnyFilter(record('INSERT', 'feedGap'), RELAY_STREAM_FILTERS)).toBe(true);
    expect(matchesAnyFilter(record('INSERT', 'delivery'), RELAY_STREAM_FILTERS)).toBe(false);
    expect(matchesAnyFilter(record('MODIFY', 'event'), RELAY_STREAM_FILTERS)).toBe(false);
  });

  describe('the stream records as the first read of a push (readFilled)', () => {
    const agentId = 'agt_01M8DRR9C8A419JBQFESM5FXXD';
    const agent = (feed_seq: number, feed_base?: number) => ({ id: agentId, feed_seq, feed_base }) as AgentRecord;
    const at = (position: number) => eventIdAt(agentId, position);
    const event = (position: number) => ({
      id: at(position),
      entity: ENTITY.event,
      type: 'contract.funded',
      created_at: '2026-11-27T06:00:00.000Z',
      agent_id: agentId,
      schema_version: 1,
      data: { contract_id: 'ctr_X', n: position },
      deliver: true,
      expires_at: 1,
    });
    const gap = (position: number) => ({ id: at(position), entity: ENTITY.feedGap, agent_id: agentId });

    it('sends the run that continues the cursor, in slot order, passing gap markers, as the feed lists them', () => {
      const read = readFilled(agent(5), at(2), [event(5), gap(4), event(3)]);
      expect(read).toEqual({
        events: [3, 5].map((n) => ({
          id: at(n),
          type: 'contract.funded',
          created_at: '2026-11-27T06:00:00.000Z',
          agent_id: agentId,
          schema_version: 1,
          data: { contract_id: 'ctr_X', n },
        })),
        cursor: at(5),
        drained: true,
      });
      // From a position cursor (a start point) as from an id.
      expect(readFilled(agent(3), afterPosition(2), [event(3)])?.cursor).toBe(at(3));
    });

    it('leaves what lies beyond the run to a read of the feed: not drained while the counter is ahead', () => {
      expect(readFilled(agent(7), at(2), [event(3), event(4)])).toMatchObject({ cursor: at(4), drained: false });
      // A hole in the records (slot 5): the run stops before it, whatever comes after.
      expect(readFilled(agent(7), at(2), [event(3), event(4), event(6)])).toMatchObject({
        cursor: at(4),
        drained: false,
      });
    });

    it('is no read when the records do not begin right after the cursor: the feed is read instead', () => {
      expect(readFilled(agent(7), at(2), [event(4), event(5)])).toBeUndefined();
      expect(readFilled(agent(7), undefined, [event(1)])).toBeUndefined();
      expect(readFilled(undefined, at(2), [event(3)])).toBeUndefined();
      expect(readFilled({ id: agentId } as AgentRecord, at(2), [event(3)])).toBeUndefined();
      // A cursor below feed_base: the reader's own rules for what came before positions.
      expect(readFilled(agent(7, 3), at(2), [event(3)])).toBeUndefined();
    });

    it('sends nothing when the cursor has passed every record (a sync sent them first)', () => {
      expect(readFilled(agent(5), at(4), [event(3), event(4)])).toEqual({ events: [], cursor: at(4), drained: false });
      expect(readFilled(agent(4), at(4), [event(4)])).toEqual({ events: [], cursor: at(4), drained: true });
    });
  });

  it("judges a connection's messages: perConnection pass, then refusals with the wait, the last of them closes, then nothing", () => {
    const { perConnection, closeAfterRefused } = PUSH.messageLimits;
    const kinds = Array.from(
      { length: perConnection + closeAfterRefused + 3 },
      (_, i) => connectionVerdict(i + 1, 4_500).kind,
    );
    expect(kinds).toEqual([
      ...Array(perConnection).fill('ok'),
      ...Array(closeAfterRefused - 1).fill('refused'),
      'close',
      'dropped',
      'dropped',
      'dropped',
    ]);
    const refused = connectionVerdict(perConnection + 1, 4_500);
    expect(refused.kind === 'refused' && refused.error).toMatchObject({ code: 'rate_limited', retryAfterSeconds: 5 });
  });

  it('docs/events.md and docs/limits.md state the message limits the code enforces', () => {
    const { perConnection, perKey, windowMs, closeAfterRefused } = PUSH.messageLimits;
    const read = (file: string) => readFileSync(new URL(`../../docs/${file}`, import.meta.url), 'utf8');
    for (const doc of [read('events.md'), read('limits.md')]) {
      expect(doc).toContain(`${perConnection} messages per ${windowMs / 1000} s`);
      expect(doc).toContain(`${perKey.toLocaleString('en-US')} messages per ${windowMs / 1000} s`);
      expect(doc).toContain(`${closeAfterRefused}th refused message`);
    }
  });
});
