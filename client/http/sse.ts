/**
 * A parser for `text/event-stream` as the WHATWG HTML standard defines it: lines end in CRLF, LF
 * or CR; `:` starts a comment (the server's heartbeat); a blank line ends an event; several
 * `data:` lines join with "\n"; an event with no data is not dispatched.
 */

export interface SseFrame {
  /** The `event:` field; "message" when absent. */
  event: string;
  data: string;
  /** The last `id:` seen on the stream so far (it carries over, as in EventSource). */
  lastEventId: string | undefined;
  /** The last `retry:` reconnection delay the server sent on this stream, if any. */
  retryMs: number | undefined;
}

/**
 * Frames as they arrive; cancelling the iteration cancels the body. `onLastEventId` hears every
 * `id:` when its block ends, also of a block without data (not dispatched): the service sends its
 * start point so (stream `since`), and a reconnect must resume from it.
 */
export async function* parseSse(
  body: ReadableStream<Uint8Array>,
  onLastEventId?: (id: string) => void,
): AsyncGenerator<SseFrame, void, undefined> {
  // The DOM typings declare the decoder's input as BufferSource, a wider type than the body's bytes.
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as TransformStream<Uint8Array, string>)
    .getReader();
  let buffer = '';
  let lastEventId: string | undefined;
  let event = '';
  let data: string[] = [];
  let retryMs: number | undefined;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return; // a partly received event at the end is dropped, as the standard says
      buffer += value;
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/);
        // A lone CR at the end of the buffer may be the first half of CRLF: wait for more.
        if (end === -1 || (buffer[end] === '\r' && end === buffer.length - 1)) break;
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
        if (line === '') {
          if (lastEventId !== undefined) onLastEventId?.(lastEventId);
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n'), lastEventId, retryMs };
          event = '';
          data = [];
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon === -1 ? line : line.slice(0, colon);
        let value = colon === -1 ? '' : line.slice(colon + 1);
        if (value.startsWith(' ')) value = value.slice(1);
        if (field === 'event') event = value;
        else if (field === 'data') data.push(value);
        else if (field === 'id' && !value.includes('\0')) lastEventId = value;
        else if (field === 'retry' && /^\d+$/.test(value)) retryMs = Number(value);
      }
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}
