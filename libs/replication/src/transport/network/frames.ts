import type { FetchRequest, FetchResponse } from '../messages';
import { decodeFetchRequest, decodeFetchResponse, encodeFetchRequest, encodeFetchResponse } from './fetch-codec';
import { toWire, fromWire } from './wire-value';

/**
 * The framing of the network transport, on a TCP stream:
 *
 *   u32 length of what follows | u8 type | u32 request id | i32 sender node id | u32 JSON length | JSON | blobs
 *
 * all big-endian. A request carries `{ kind, body }`, a response the response body, an error frame
 * `{ message }`. Request ids are per connection; responses may come in any order (long-polls).
 * With a cluster secret, Challenge / Proof / Accepted open the connection (peer-authentication.ts).
 *
 * FetchRequest / FetchResponse carry a fetch in the fixed layout of fetch-codec.ts instead of JSON
 * (JSON length 0); they decode as a Request `{ kind: 'fetch', body }` and a Response with
 * `fixedLayout` set. A node uses them only with a peer that showed it reads them (connection-level
 * negotiation in peer-connection.ts and inbound-connection.ts), so nodes of older versions, which
 * know only the JSON frames, still replicate with this one.
 */
export const FrameType = {
  Request: 1,
  Response: 2,
  Error: 3,
  Challenge: 4,
  Proof: 5,
  Accepted: 6,
  FetchRequest: 7,
  FetchResponse: 8,
} as const;
export type FrameType = (typeof FrameType)[keyof typeof FrameType];

/** Set in a JSON fetch request's envelope (`{ kind, body, … }`): the sender reads fetch responses in the fixed layout. */
export const READS_FIXED_LAYOUT_FETCH = 'readsFixedLayoutFetch';

export interface Frame {
  /** Request or Response for the fetch frames too; `fixedLayout` tells them apart. */
  type: FrameType;
  requestId: number;
  from: number;
  payload: unknown;
  /** The frame was a FetchRequest or FetchResponse. */
  fixedLayout?: boolean;
}

const HEADER_BYTES = 4 + 1 + 4 + 4 + 4;

/** Raised when the bytes on a connection are not our protocol (or a frame is over the limit). */
export class FrameError extends Error {
  override readonly name = 'FrameError';
}

export function encodeFrame(
  type: FrameType,
  requestId: number,
  from: number,
  payload: unknown,
  maxFrameBytes: number,
): Buffer {
  const wire = toWire(payload);
  const jsonBytes = Buffer.byteLength(wire.json);
  const frame = allocateFrame(type, requestId, from, jsonBytes, wire.blobBytes, maxFrameBytes);
  frame.write(wire.json, HEADER_BYTES, 'utf8');
  let at = HEADER_BYTES + jsonBytes;
  for (const blob of wire.blobs) at += blob.copy(frame, at);
  return frame;
}

/** A fetch request in the fixed layout, or undefined when the layout cannot carry it (send it as JSON). */
export function encodeFetchRequestFrame(
  requestId: number,
  from: number,
  request: FetchRequest,
  maxFrameBytes: number,
): Buffer | undefined {
  const frame = encodeFetchRequest(request, HEADER_BYTES);
  return frame && writeHeader(frame, FrameType.FetchRequest, requestId, from, 0, maxFrameBytes);
}

/** A fetch response in the fixed layout, or undefined when the layout cannot carry it (send it as JSON). */
export function encodeFetchResponseFrame(
  requestId: number,
  from: number,
  response: FetchResponse,
  maxFrameBytes: number,
): Buffer | undefined {
  const frame = encodeFetchResponse(response, HEADER_BYTES);
  return frame && writeHeader(frame, FrameType.FetchResponse, requestId, from, 0, maxFrameBytes);
}

function allocateFrame(
  type: FrameType,
  requestId: number,
  from: number,
  jsonBytes: number,
  restBytes: number,
  maxFrameBytes: number,
): Buffer {
  // Refused before allocating: an oversized payload must not cost its size in memory first.
  checkFrameSize(HEADER_BYTES + jsonBytes + restBytes, maxFrameBytes);
  return writeHeader(
    Buffer.allocUnsafe(HEADER_BYTES + jsonBytes + restBytes),
    type,
    requestId,
    from,
    jsonBytes,
    maxFrameBytes,
  );
}

function checkFrameSize(total: number, maxFrameBytes: number): void {
  if (total - 4 > maxFrameBytes) throw new FrameError(`frame of ${total} bytes exceeds the limit of ${maxFrameBytes}`);
}

/** Fills in the header of a whole frame (its first HEADER_BYTES bytes), refusing one over the limit. */
function writeHeader(
  frame: Buffer,
  type: FrameType,
  requestId: number,
  from: number,
  jsonBytes: number,
  maxFrameBytes: number,
): Buffer {
  checkFrameSize(frame.length, maxFrameBytes);
  frame.writeUInt32BE(frame.length - 4, 0);
  frame.writeUInt8(type, 4);
  frame.writeUInt32BE(requestId >>> 0, 5);
  frame.writeInt32BE(from | 0, 9);
  frame.writeUInt32BE(jsonBytes, 13);
  return frame;
}

/**
 * Cuts a byte stream into frames. Chunks are kept as they arrive; a complete frame is a view of its
 * chunk when it lies in one, else its bytes (and only its bytes) are copied once — so many frames
 * queued on a busy connection cost no more than their own size.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly maxFrameBytes: number) {}

  /** Adds a chunk and returns every frame it completed; throws FrameError on a malformed stream. */
  push(chunk: Buffer): Frame[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const frames: Frame[] = [];
    for (;;) {
      if (this.buffered < 4) break;
      const length = this.peekLength();
      if (length > this.maxFrameBytes || length < HEADER_BYTES - 4)
        throw new FrameError(`frame length ${length} out of bounds`);
      if (this.buffered < 4 + length) break;
      frames.push(decodeFrame(this.take(4 + length)));
    }
    return frames;
  }

  private peekLength(): number {
    const first = this.chunks[0];
    if (first.length >= 4) return first.readUInt32BE(0);
    return Buffer.concat(this.chunks, 4).readUInt32BE(0);
  }

  /** Removes the first `bytes` bytes: a view when one chunk holds them, else one copy of just those bytes. */
  private take(bytes: number): Buffer {
    this.buffered -= bytes;
    const first = this.chunks[0];
    if (first.length >= bytes) {
      if (first.length === bytes) this.chunks.shift();
      else this.chunks[0] = first.subarray(bytes);
      return first.subarray(0, bytes);
    }
    const frame = Buffer.allocUnsafe(bytes);
    let filled = 0;
    while (filled < bytes) {
      const chunk = this.chunks[0];
      const used = Math.min(chunk.length, bytes - filled);
      chunk.copy(frame, filled, 0, used);
      filled += used;
      if (used === chunk.length) this.chunks.shift();
      else this.chunks[0] = chunk.subarray(used);
    }
    return frame;
  }
}

function decodeFrame(frame: Buffer): Frame {
  const type = frame.readUInt8(4) as FrameType;
  if (!(type >= FrameType.Request && type <= FrameType.FetchResponse))
    throw new FrameError(`unknown frame type ${type}`);
  const jsonBytes = frame.readUInt32BE(13);
  if (HEADER_BYTES + jsonBytes > frame.length) throw new FrameError('JSON section overruns the frame');
  const requestId = frame.readUInt32BE(5);
  const from = frame.readInt32BE(9);
  try {
    if (type === FrameType.FetchRequest)
      return {
        type: FrameType.Request,
        requestId,
        from,
        payload: { kind: 'fetch', body: decodeFetchRequest(frame.subarray(HEADER_BYTES)) },
        fixedLayout: true,
      };
    if (type === FrameType.FetchResponse)
      return {
        type: FrameType.Response,
        requestId,
        from,
        payload: decodeFetchResponse(frame.subarray(HEADER_BYTES)),
        fixedLayout: true,
      };
    return {
      type,
      requestId,
      from,
      payload: fromWire(
        frame.toString('utf8', HEADER_BYTES, HEADER_BYTES + jsonBytes),
        frame.subarray(HEADER_BYTES + jsonBytes),
      ),
    };
  } catch (error) {
    throw new FrameError(`undecodable payload: ${(error as Error).message}`);
  }
}
