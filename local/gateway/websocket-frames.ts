/**
 * API Gateway's sizes for what a WebSocket client sends: a message of at most 128 KB, in frames of
 * at most 32 KB each; either beyond, and API Gateway closes the connection with 1009 (Message Too
 * Big). `ws` checks only the message (its `maxPayload`, which the local gateway sets to the
 * message limit), so the frames are checked here, on the raw bytes before `ws` parses them.
 */
export const PUSH_WEBSOCKET_LIMITS = { maxFrameBytes: 32 * 1024, maxMessageBytes: 128 * 1024 } as const;

/**
 * A reader of a client's byte stream (RFC 6455 §5.2: 2 header bytes, 0, 2 or 8 bytes of extended
 * length, a 4-byte mask from a client) that calls `onOversize` once, at the first frame header
 * announcing a payload over `maxFrameBytes`, before the payload arrives. Payloads are skipped
 * without being looked at; only headers are read, byte by byte, however the chunks cut them.
 */
export function frameSizeGuard(maxFrameBytes: number, onOversize: () => void): (chunk: Buffer) => void {
  const header: number[] = [];
  let payloadLeft = 0;
  let tripped = false;
  return (chunk) => {
    let offset = 0;
    while (!tripped && offset < chunk.length) {
      if (payloadLeft > 0) {
        const skipped = Math.min(payloadLeft, chunk.length - offset);
        payloadLeft -= skipped;
        offset += skipped;
        continue;
      }
      header.push(chunk[offset++]!);
      if (header.length < 2) continue;
      const short = header[1]! & 0x7f;
      const lengthBytes = short === 126 ? 2 : short === 127 ? 8 : 0;
      const needed = 2 + lengthBytes + (header[1]! & 0x80 ? 4 : 0);
      if (header.length < needed) continue;
      let length = short;
      if (lengthBytes > 0) {
        length = 0;
        // 2^53 is far beyond any limit here: a double holds every length that matters exactly.
        for (let i = 2; i < 2 + lengthBytes; i++) length = length * 256 + header[i]!;
      }
      header.length = 0;
      if (length > maxFrameBytes) {
        tripped = true;
        onOversize();
        return;
      }
      payloadLeft = length;
    }
  };
}
