import type { CommittedOffset, OffsetAndMetadata } from '../group/group-offsets';
import {
  isInteger,
  isNullableInteger,
  isString,
  parseJson,
  RecordDecodeError,
  requireField,
  requireObject,
} from './record-codec';

/**
 * OffsetCommitValue as written: Kafka's own binary layout (`OffsetCommitValue.json`), an int16 version
 * then the fields of that version, big-endian. Cohort writes v3 —
 *
 *   offset int64, leaderEpoch int32, metadata string (int16 length + UTF-8), commitTimestamp int64
 *
 * and reads Kafka's v0–v3 (v1 adds expireTimestamp int64, v0–v2 have no leaderEpoch). Earlier Cohort
 * releases wrote the same fields as a JSON object with a version field `v`; such a value starts with
 * `{`, a binary one with the version's high byte (0), so both are read and a data directory written by
 * an older release loads unchanged. JSON is still written where Kafka's layout would lose something:
 * metadata longer than an int16 length can say (only with OFFSET_METADATA_MAX_BYTES above 32,767), and
 * a replayed legacy expiry, whose JSON form also keeps the leader epoch that Kafka's v1 has no room for.
 */
const WRITE_VERSION = 3;
const LEGACY_EXPIRY_VERSION = 1;
const WHAT = 'offset commit value';
const OPEN_BRACE = 0x7b;
const MAX_INT16_STRING_BYTES = 0x7fff;
const TWO_POW_32 = 0x1_0000_0000;

export function encodeOffsetCommitValue(value: OffsetAndMetadata): Buffer {
  const metadataBytes = Buffer.byteLength(value.metadata, 'utf8');
  if (metadataBytes > MAX_INT16_STRING_BYTES || value.expireTimestamp !== null) return encodeJsonValue(value);
  const buf = Buffer.allocUnsafe(2 + 8 + 4 + 2 + metadataBytes + 8);
  let p = buf.writeInt16BE(WRITE_VERSION, 0);
  p = writeInt64(buf, value.offset, p);
  p = buf.writeInt32BE(value.leaderEpoch, p);
  p = buf.writeInt16BE(metadataBytes, p);
  p += metadataBytes === 0 ? 0 : buf.write(value.metadata, p, 'utf8');
  writeInt64(buf, value.commitTimestamp, p);
  return buf;
}

export function decodeOffsetCommitValue(bytes: Buffer): OffsetAndMetadata {
  const { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp } = decodeCommittedOffset(bytes, -1);
  return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

/** The value of the record at `logOffset` as a committed offset; the value is `bytes[start, end)` (the whole buffer by default). */
export function decodeCommittedOffset(
  bytes: Buffer,
  logOffset: number,
  start = 0,
  end = bytes.length,
): CommittedOffset {
  return decodeCommittedOffsetInto(
    { offset: 0, leaderEpoch: -1, metadata: '', commitTimestamp: 0, expireTimestamp: null, logOffset },
    bytes,
    logOffset,
    start,
    end,
  );
}

/**
 * `decodeCommittedOffset` into an entry the caller owns: what the loader decodes a million records
 * with, into one entry whose fields `GroupOffsets.install` copies, so a load makes no object per
 * record. The value `bytes[start, end)` is read in place.
 */
export function decodeCommittedOffsetInto(
  into: CommittedOffset,
  bytes: Buffer,
  logOffset: number,
  start: number,
  end: number,
): CommittedOffset {
  if (end > start && bytes[start] === OPEN_BRACE) {
    const json = decodeJsonValue(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end));
    into.offset = json.offset;
    into.leaderEpoch = json.leaderEpoch;
    into.metadata = json.metadata;
    into.commitTimestamp = json.commitTimestamp;
    into.expireTimestamp = json.expireTimestamp;
    into.logOffset = logOffset;
    return into;
  }
  const length = end - start;
  if (length < 2) throw new RecordDecodeError(`${WHAT} is truncated`);
  // Bytes read by hand rather than with Buffer's readers: a third of the cost of a million decodes.
  const version = int16At(bytes, start);
  // v0 and v2 are v1 without the expiry and v3 without the epoch: Kafka's reader takes all of them.
  if (version < 0 || version > 3) throw new RecordDecodeError(`${WHAT} has unknown version ${version}`);
  const hasEpoch = version >= 3;
  const hasExpiry = version === 1;
  if (length < 2 + 8 + (hasEpoch ? 4 : 0) + 2) throw new RecordDecodeError(`${WHAT} is truncated`);
  const offset = int64At(bytes, start + 2);
  let p = start + 10;
  const leaderEpoch = hasEpoch ? int32At(bytes, p) : -1;
  if (hasEpoch) p += 4;
  const metadataBytes = int16At(bytes, p);
  p += 2;
  if (metadataBytes < 0 || end !== p + metadataBytes + 8 + (hasExpiry ? 8 : 0))
    throw new RecordDecodeError(`${WHAT} v${version} has the wrong length`);
  const metadata = metadataBytes === 0 ? '' : bytes.toString('utf8', p, p + metadataBytes);
  p += metadataBytes;
  const commitTimestamp = int64At(bytes, p);
  const expireTimestamp = hasExpiry ? int64At(bytes, p + 8) : null;
  into.offset = offset;
  into.leaderEpoch = leaderEpoch;
  into.metadata = metadata;
  into.commitTimestamp = commitTimestamp;
  into.expireTimestamp = expireTimestamp;
  into.logOffset = logOffset;
  return into;
}

/** The layout of earlier releases (and of metadata too long for an int16 length). */
function encodeJsonValue(value: OffsetAndMetadata): Buffer {
  const record: Record<string, unknown> = {
    v: value.expireTimestamp === null ? WRITE_VERSION : LEGACY_EXPIRY_VERSION,
    offset: value.offset,
    leaderEpoch: value.leaderEpoch,
    metadata: value.metadata,
    commitTimestamp: value.commitTimestamp,
  };
  if (value.expireTimestamp !== null) record.expireTimestamp = value.expireTimestamp;
  return Buffer.from(JSON.stringify(record), 'utf8');
}

function decodeJsonValue(bytes: Buffer): OffsetAndMetadata {
  const o = requireObject(parseJson(bytes, 'value'), WHAT);
  const leaderEpoch = o.leaderEpoch === undefined ? -1 : requireField(o, 'leaderEpoch', isInteger, WHAT);
  const expireTimestamp =
    o.expireTimestamp === undefined ? null : requireField(o, 'expireTimestamp', isNullableInteger, WHAT);
  return {
    offset: requireField(o, 'offset', isInteger, WHAT),
    leaderEpoch,
    metadata: requireField(o, 'metadata', isString, WHAT),
    commitTimestamp: requireField(o, 'commitTimestamp', isInteger, WHAT),
    expireTimestamp,
  };
}

function writeInt64(buf: Buffer, value: number, at: number): number {
  const high = Math.floor(value / TWO_POW_32);
  buf.writeInt32BE(high, at);
  return buf.writeUInt32BE(value - high * TWO_POW_32, at + 4);
}

/** Big-endian signed integers at `at`, whose bytes the caller checked are there. */
function int16At(buf: Buffer, at: number): number {
  return ((buf[at] << 24) | (buf[at + 1] << 16)) >> 16;
}

function int32At(buf: Buffer, at: number): number {
  return (buf[at] << 24) | (buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3];
}

function int64At(buf: Buffer, at: number): number {
  const low = buf[at + 4] * 0x100_0000 + ((buf[at + 5] << 16) | (buf[at + 6] << 8) | buf[at + 7]);
  const value = int32At(buf, at) * TWO_POW_32 + low;
  if (!Number.isSafeInteger(value)) throw new RecordDecodeError(`${WHAT} holds an integer beyond 2^53`);
  return value;
}
