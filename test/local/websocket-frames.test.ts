import { describe, expect, it } from 'vitest';
import { frameSizeGuard } from '../../local/gateway/websocket-frames.ts';

/** A client frame's bytes (RFC 6455 §5.2): FIN and opcode, the masked length in 7, 7+16 or 7+64 bits, a mask, the payload. */
function frame(payloadBytes: number, opcode = 0x1): Buffer {
  const length =
    payloadBytes < 126
      ? Buffer.from([0x80 | payloadBytes])
      : payloadBytes < 65_536
        ? Buffer.from([0x80 | 126, payloadBytes >> 8, payloadBytes & 0xff])
        : Buffer.concat([
            Buffer.from([0x80 | 127]),
            Buffer.from(BigInt(payloadBytes).toString(16).padStart(16, '0'), 'hex'),
          ]);
  return Buffer.concat([
    Buffer.from([0x80 | opcode]),
    length,
    Buffer.from([1, 2, 3, 4]),
    Buffer.alloc(payloadBytes, 0x61),
  ]);
}

/** Feeds `bytes` to a fresh guard in chunks of `size`; how many times it tripped. */
function trips(bytes: Buffer, max: number, size: number): number {
  let tripped = 0;
  const guard = frameSizeGuard(max, () => tripped++);
  for (let i = 0; i < bytes.length; i += size) guard(bytes.subarray(i, i + size));
  return tripped;
}

describe('frameSizeGuard: the first frame over the limit, however the chunks cut the stream', () => {
  const max = 32 * 1024;
  it.each([1, 3, 7, 1000, 1 << 20])('chunks of %i bytes', (size) => {
    // Frames at the limit in every length encoding, then one byte over it, in the 16- and the 64-bit form.
    const within = Buffer.concat([frame(0), frame(125), frame(126), frame(max), frame(10, 0x9)]);
    expect(trips(within, max, size)).toBe(0);
    expect(trips(Buffer.concat([within, frame(max + 1)]), max, size)).toBe(1);
    expect(trips(Buffer.concat([within, frame(70_000), frame(1)]), max, size)).toBe(1);
  });

  it('reads a 64-bit length exactly (a 2^40-byte frame is over, not wrapped to a small number)', () => {
    const header = Buffer.concat([
      Buffer.from([0x81, 0x80 | 127]),
      Buffer.from('0000010000000000', 'hex'),
      Buffer.alloc(4),
    ]);
    expect(trips(header, max, 1)).toBe(1);
  });
});
