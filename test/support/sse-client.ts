/** One server-sent event frame as a test sees it: its fields, and the text of a comment line. */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/**
 * An SSE client reduced to what tests need: GETs `url` and collects the frames as they arrive
 * (`frames` grows in place) until `close()`. A non-200 answer is left to the caller to read.
 */
export async function openSse(url: string, headers: Record<string, string>) {
  const controller = new AbortController();
  const res = await fetch(url, { headers, signal: controller.signal });
  const frames: SseFrame[] = [];
  const reading = (async () => {
    if (res.status !== 200) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const frame: SseFrame = {};
          for (const line of buffer.slice(0, end).split('\n')) {
            if (line.startsWith(':')) frame.comment = line.slice(1).trim();
            else {
              const [field, ...rest] = line.split(':');
              (frame as Record<string, string>)[field!] = rest.join(':').trimStart();
            }
          }
          frames.push(frame);
          buffer = buffer.slice(end + 2);
        }
      }
    } catch {
      // aborted by close()
    }
  })();
  return {
    res,
    frames,
    /** Resolves when the server ends the stream (or close() aborts it). */
    ended: reading,
    close: async () => {
      controller.abort();
      await reading;
    },
  };
}
