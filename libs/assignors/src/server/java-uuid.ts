/**
 * A topic's id as Kafka's server assignors see it. Kafka orders topics by `Uuid` (its hash for a
 * `HashSet<Uuid>`, `compareTo` as the heterogeneous builder's last tie break), and Cohort has no topic
 * ids of its own, so Cohort fixes a topic's id as Java's `UUID.nameUUIDFromBytes` of its UTF-8 name
 * (an MD5 name-based UUID, version 3): the same names then give Kafka's assignment bit for bit.
 * The two 64-bit halves are kept as four signed 32-bit words, high word first.
 */
import { md5 } from './md5';

export interface JavaUuid {
  readonly msbHigh: number;
  readonly msbLow: number;
  readonly lsbHigh: number;
  readonly lsbLow: number;
}

const encoder = new TextEncoder();

function fromBytes(bytes: Uint8Array): JavaUuid {
  const view = new DataView(bytes.buffer, bytes.byteOffset, 16);
  return {
    msbHigh: view.getInt32(0),
    msbLow: view.getInt32(4),
    lsbHigh: view.getInt32(8),
    lsbLow: view.getInt32(12),
  };
}

/** `java.util.UUID.nameUUIDFromBytes(name.getBytes(UTF_8))`. */
export function topicIdOf(name: string): JavaUuid {
  const bytes = md5(encoder.encode(name));
  bytes[6] = (bytes[6] & 0x0f) | 0x30;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  return fromBytes(bytes);
}

/** `Uuid.hashCode()`: the xor of the halves, folded to 32 bits. */
export function uuidHashCode(id: JavaUuid): number {
  return id.msbHigh ^ id.lsbHigh ^ id.msbLow ^ id.lsbLow;
}

function compareWords(high1: number, low1: number, high2: number, low2: number): number {
  if (high1 !== high2) return high1 < high2 ? -1 : 1;
  const a = low1 >>> 0;
  const b = low2 >>> 0;
  return a === b ? 0 : a < b ? -1 : 1;
}

/** `Uuid.compareTo`: signed comparison of the most significant half, then of the least. */
export function compareUuids(a: JavaUuid, b: JavaUuid): number {
  return (
    compareWords(a.msbHigh, a.msbLow, b.msbHigh, b.msbLow) || compareWords(a.lsbHigh, a.lsbLow, b.lsbHigh, b.lsbLow)
  );
}

function toBytes(id: JavaUuid): Uint8Array {
  const bytes = new Uint8Array(16);
  const view = new DataView(bytes.buffer);
  view.setInt32(0, id.msbHigh);
  view.setInt32(4, id.msbLow);
  view.setInt32(8, id.lsbHigh);
  view.setInt32(12, id.lsbLow);
  return bytes;
}

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';

/** Kafka's `Uuid.toString()`: URL-safe base64 of the 16 bytes, without padding (22 characters). */
export function uuidToString(id: JavaUuid): string {
  const bytes = toBytes(id);
  let text = '';
  for (let i = 0; i < 16; i += 3) {
    const chunk = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    text += BASE64URL[(chunk >>> 18) & 63] + BASE64URL[(chunk >>> 12) & 63];
    if (i + 1 < 16) text += BASE64URL[(chunk >>> 6) & 63];
    if (i + 2 < 16) text += BASE64URL[chunk & 63];
  }
  return text;
}

/** Kafka's `Uuid.fromString` (the test suites ported from Kafka name their topics' ids this way). */
export function uuidFromString(text: string): JavaUuid {
  if (!/^[A-Za-z0-9_-]{22}$/.test(text)) throw new Error(`not a base64 Kafka Uuid: '${text}'`);
  const bytes = new Uint8Array(18);
  let bits = 0;
  let value = 0;
  let index = 0;
  for (const char of text) {
    value = (value << 6) | BASE64URL.indexOf(char);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[index++] = (value >>> bits) & 0xff;
    }
  }
  return fromBytes(bytes.subarray(0, 16));
}
