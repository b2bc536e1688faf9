import { decodeBatch, encodeBatch, fitsBatchFormat, readValidHeader } from '../../log/batch-codec';
import type { StoredBatch } from '../../log/partition-log';

/**
 * Plain data with Buffers ↔ JSON text plus binary blobs side by side. JSON alone would turn a Buffer
 * into an array of numbers (or base64, a third larger and costly to encode and decode); here each
 * Buffer is replaced by a placeholder `{"\u0000b":[offset,length]}` into a blob section sent after the
 * JSON, and put back byte-exactly on decoding.
 *
 * Record batches (`{ baseOffset, leaderEpoch, records }`, the bulk of every Fetch response) travel as
 * one blob each in the log's own CRC-checked batch format (`{"\u0000B":[offset,length]}`), as Kafka
 * sends record batches in their on-disk form: per-record JSON made catch-up fetches several times
 * slower (the measurement is in network-transport.ts), and the checksum now covers the trip between
 * replicas too.
 *
 * `undefined` properties are dropped, as JSON drops them; everything else must be JSON data.
 */

const BLOB = '\u0000b';
const BATCH = '\u0000B';

export interface WireValue {
  json: string;
  blobs: Buffer[];
  blobBytes: number;
}

export function toWire(value: unknown): WireValue {
  const state = { blobs: [] as Buffer[], blobBytes: 0 };
  const json = JSON.stringify(replaceBuffers(value, state));
  return { json: json ?? 'null', blobs: state.blobs, blobBytes: state.blobBytes };
}

/** Decodes what `toWire` produced; `blobs` is the blob section. Buffers are copies, not views of it. */
export function fromWire(json: string, blobs: Buffer): unknown {
  const value: unknown = JSON.parse(json);
  return restoreBuffers(value, blobs);
}

function replaceBuffers(v: unknown, state: { blobs: Buffer[]; blobBytes: number }): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (v instanceof Uint8Array) {
    const b = Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength);
    const placeholder = { [BLOB]: [state.blobBytes, b.length] };
    state.blobs.push(b);
    state.blobBytes += b.length;
    return placeholder;
  }
  if (Array.isArray(v)) {
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = replaceBuffers(v[i], state);
    return out;
  }
  if (isStoredBatch(v)) {
    const encoded = encodeBatch(v);
    const placeholder = { [BATCH]: [state.blobBytes, encoded.length] };
    state.blobs.push(encoded);
    state.blobBytes += encoded.length;
    return placeholder;
  }
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(v)) {
    const x = (v as Record<string, unknown>)[key];
    if (x !== undefined) out[key] = replaceBuffers(x, state);
  }
  return out;
}

function restoreBuffers(v: unknown, blobs: Buffer): unknown {
  if (v === null || typeof v !== 'object') return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = restoreBuffers(v[i], blobs);
    return v;
  }
  const o = v as Record<string, unknown>;
  if (o[BLOB] !== undefined) {
    const [offset, length] = blobRange(o[BLOB], blobs);
    return Buffer.from(blobs.subarray(offset, offset + length));
  }
  if (o[BATCH] !== undefined) {
    const [offset, length] = blobRange(o[BATCH], blobs);
    const header = readValidHeader(blobs, offset, offset + length);
    if (!header || header.size !== length) throw new Error('record batch failed its checksum or is malformed');
    return decodeBatch(blobs, offset, header);
  }
  for (const key of Object.keys(o)) o[key] = restoreBuffers(o[key], blobs);
  return o;
}

function blobRange(ref: unknown, blobs: Buffer): [number, number] {
  if (!Array.isArray(ref) || ref.length !== 2 || !Number.isSafeInteger(ref[0]) || !Number.isSafeInteger(ref[1]))
    throw new Error('malformed blob reference');
  const [offset, length] = ref as [number, number];
  if (offset < 0 || length < 0 || offset + length > blobs.length) throw new Error('blob reference out of range');
  return [offset, length];
}

/**
 * A non-empty batch as logs store it, whose records all carry the batch's epoch (the log format keeps
 * the epoch once per batch). Anything else shaped differently goes through the generic path.
 */
function isStoredBatch(v: object): v is StoredBatch {
  const b = v as StoredBatch;
  // Exactly a batch's fields, so that the generic walk loses nothing by taking it as one.
  return Object.keys(v).length === 3 && fitsBatchFormat(b) && b.records.every((r) => Object.keys(r).length === 5);
}
