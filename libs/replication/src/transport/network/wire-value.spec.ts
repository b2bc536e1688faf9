import { randomBytes } from 'node:crypto';
import { edgeCaseBatch } from '@cohort/replication/testing';
import { encodeFrame, FrameError, FrameReader, FrameType } from './frames';
import { fromWire, toWire } from './wire-value';

function roundTrip(value: unknown): unknown {
  const wire = toWire(value);
  return fromWire(wire.json, Buffer.concat(wire.blobs));
}

const batch = edgeCaseBatch;

describe('wire values', () => {
  it('carries record batches byte-exactly, tombstones, empty keys and sparse offsets included', () => {
    const response = {
      errorCode: 0,
      partitions: [
        {
          partition: 3,
          errorCode: 0,
          highWatermark: 9,
          logStartOffset: 0,
          logEndOffset: 2 ** 40,
          batches: [batch(2 ** 40 - 10, 7), batch(5, 0)],
        },
      ],
    };
    expect(roundTrip(response)).toEqual(response);
  });

  it('carries loose Buffers and Uint8Arrays byte-exactly and drops undefined fields like JSON', () => {
    const big = randomBytes(1 << 20);
    const decoded = roundTrip({
      a: big,
      b: [new Uint8Array([1, 2, 3]), null],
      c: undefined,
      d: { e: 'x', f: -1.5 },
    }) as Record<string, unknown>;
    expect(Buffer.compare(decoded.a as Buffer, big)).toBe(0);
    expect(decoded.b).toEqual([Buffer.from([1, 2, 3]), null]);
    expect('c' in decoded).toBe(false);
    expect(decoded.d).toEqual({ e: 'x', f: -1.5 });
  });

  it('keeps a batch whose records do not match the log format as plain data', () => {
    const odd = {
      baseOffset: 1,
      leaderEpoch: 2,
      records: [{ key: Buffer.from('k'), value: null, timestamp: 1, offset: 1, leaderEpoch: 3 }],
    };
    expect(roundTrip({ batches: [odd] })).toEqual({ batches: [odd] });
  });

  it('detects a record batch damaged on the way', () => {
    const wire = toWire({ batches: [batch(0, 1)] });
    const blobs = Buffer.concat(wire.blobs);
    blobs[blobs.length - 1] ^= 0xff;
    expect(() => fromWire(wire.json, blobs)).toThrow(/checksum/);
  });
});

describe('frames', () => {
  it('reassembles frames cut into arbitrary chunks, several per chunk', () => {
    const frames = [1, 2, 3].map((id) =>
      encodeFrame(FrameType.Request, id, 4, { kind: 'fetch', body: { n: id, data: randomBytes(1000) } }, 1 << 20),
    );
    const stream = Buffer.concat(frames);
    const reader = new FrameReader(1 << 20);
    const seen: number[] = [];
    for (let at = 0; at < stream.length; at += 7)
      for (const f of reader.push(stream.subarray(at, at + 7))) seen.push(f.requestId);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('reads many queued frames out of a few large chunks, each frame intact', () => {
    const payloads = Array.from({ length: 50 }, (_, id) => ({ id, data: randomBytes(100 + id * 37) }));
    const stream = Buffer.concat(payloads.map((p) => encodeFrame(FrameType.Response, p.id, 1, p, 1 << 20)));
    const reader = new FrameReader(1 << 20);
    const cuts = [0, 5, Math.floor(stream.length / 2), stream.length - 3, stream.length];
    const seen = cuts.slice(1).flatMap((end, i) => reader.push(stream.subarray(cuts[i], end)));
    expect(seen.map((f) => f.payload)).toEqual(payloads);
  });

  it('refuses frames over the limit, when sending and when receiving', () => {
    expect(() => encodeFrame(FrameType.Response, 1, 1, { data: Buffer.alloc(2048) }, 1024)).toThrow(FrameError);
    const frame = encodeFrame(FrameType.Response, 1, 1, { data: Buffer.alloc(2048) }, 1 << 20);
    expect(() => new FrameReader(1024).push(frame)).toThrow(FrameError);
    expect(() => new FrameReader(1024).push(Buffer.from('GET / HTTP/1.1\r\n\r\n'))).toThrow(FrameError);
  });
});
