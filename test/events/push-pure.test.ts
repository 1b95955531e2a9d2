import { describe, expect, it } from 'vitest';
import { pushUrlOf } from '../../client/http/push-socket.ts';
import { PUSH_FILTER_PATTERN } from '../../lib/events/push/push-batch.ts';
import { matchesFilter } from '../../lib/events/stream-filter.ts';
import { handshakeKey } from '../../lib/http/socket-route.ts';

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

  it('wakes the push worker for new feed slots only: event rows and gap markers, not their changes or other items', () => {
    const record = (eventName: string, entity: string) => ({
      eventName,
      dynamodb: { NewImage: { entity: { S: entity }, agent_id: { S: 'agt_X' } } },
    });
    expect(matchesFilter(record('INSERT', 'event'), PUSH_FILTER_PATTERN)).toBe(true);
    expect(matchesFilter(record('INSERT', 'feedGap'), PUSH_FILTER_PATTERN)).toBe(true);
    expect(matchesFilter(record('MODIFY', 'event'), PUSH_FILTER_PATTERN)).toBe(false);
    expect(matchesFilter(record('INSERT', 'pushConnections'), PUSH_FILTER_PATTERN)).toBe(false);
    expect(matchesFilter(record('INSERT', 'delivery'), PUSH_FILTER_PATTERN)).toBe(false);
  });
});
