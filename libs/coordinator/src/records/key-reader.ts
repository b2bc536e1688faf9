import { decodeKey, type DecodedKey } from './record-codec';

const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const ZERO = 0x30;
const NINE = 0x39;
/** Fifteen digits always make a safe integer; a longer partition number goes the slow way. */
const MAX_FAST_DIGITS = 15;

/**
 * Decodes the keys of a partition being loaded, one after another. An offset commit key is written as
 * `[1,"<group>","<topic>",<partition>]` (`offsetCommitKey`); its common form — no escapes in the
 * strings — is read straight from the bytes, and a group id or topic whose bytes equal the previous
 * key's reuses its string, so the thousand records of one commit share one group id and one topic
 * instead of each holding copies. Every other key (group metadata, escapes, anything odd) goes through
 * `decodeKey`, which decides exactly as before what is valid.
 */
export class KeyReader {
  private previous: Buffer | undefined;
  private groupStart = 0;
  private groupEnd = 0;
  private groupId = '';
  private topicStart = 0;
  private topicEnd = 0;
  private topic = '';
  /** Where the previous offset commit key starts in `previous`, and how long its part before the partition is (0: none). */
  private prefixStart = 0;
  private prefixLength = 0;
  /** Topic names seen in this load, so every group's offsets share one string per topic. */
  private readonly topics = new Map<string, string>();
  /** What `decodeAt` answers for an offset commit key: one object for the whole load, overwritten by each key. */
  private readonly offsetKey = { type: 'offset-commit' as const, groupId: '', topic: '', partition: 0 };

  /** The key as an object of its own. */
  decode(key: Buffer): DecodedKey {
    const decoded = this.decodeAt(key, 0, key.length);
    return decoded === this.offsetKey ? { ...decoded } : decoded;
  }

  /**
   * The key `bytes[start, end)`, read in place (a record visited by `PartitionStore.scan`). An offset
   * commit key read the fast way comes back in an object this reader reuses, valid until its next call:
   * the loader reads its fields at once, and a million keys then make no million objects.
   */
  decodeAt(bytes: Buffer, start: number, end: number): DecodedKey {
    // The next key of the same group and topic: `[1,"<group>","<topic>",` as the previous key, byte for byte.
    const prefix = this.prefixLength;
    if (
      prefix > 0 &&
      end - start > prefix + 1 &&
      bytes[end - 1] === CLOSE_BRACKET &&
      sameBytes(bytes, start, start + prefix, this.previous!, this.prefixStart, this.prefixStart + prefix)
    ) {
      const partition = digits(bytes, start + prefix, end - 1);
      if (partition >= 0) {
        this.previous = bytes;
        this.groupStart += start - this.prefixStart;
        this.groupEnd += start - this.prefixStart;
        this.topicStart += start - this.prefixStart;
        this.topicEnd += start - this.prefixStart;
        this.prefixStart = start;
        this.offsetKey.partition = partition;
        return this.offsetKey;
      }
    }
    if (
      end - start < 10 ||
      bytes[start] !== OPEN_BRACKET ||
      (bytes[start + 1] !== ZERO + 1 && bytes[start + 1] !== ZERO) ||
      bytes[start + 2] !== COMMA ||
      bytes[start + 3] !== QUOTE
    ) {
      return slow(bytes, start, end);
    }
    const groupStart = start + 4;
    const groupEnd = stringEnd(bytes, groupStart, end);
    if (groupEnd < 0 || bytes[groupEnd + 1] !== COMMA || bytes[groupEnd + 2] !== QUOTE) return slow(bytes, start, end);
    const topicStart = groupEnd + 3;
    const topicEnd = stringEnd(bytes, topicStart, end);
    if (topicEnd < 0 || bytes[topicEnd + 1] !== COMMA || bytes[end - 1] !== CLOSE_BRACKET)
      return slow(bytes, start, end);
    const partition = digits(bytes, topicEnd + 2, end - 1);
    if (partition < 0) return slow(bytes, start, end);
    const previous = this.previous;
    const groupId =
      previous !== undefined && sameBytes(bytes, groupStart, groupEnd, previous, this.groupStart, this.groupEnd)
        ? this.groupId
        : bytes.toString('utf8', groupStart, groupEnd);
    let topic: string;
    if (previous !== undefined && sameBytes(bytes, topicStart, topicEnd, previous, this.topicStart, this.topicEnd))
      topic = this.topic;
    else {
      const read = bytes.toString('utf8', topicStart, topicEnd);
      topic = this.topics.get(read) ?? read;
      if (topic === read) this.topics.set(read, read);
    }
    this.previous = bytes;
    this.groupStart = groupStart;
    this.groupEnd = groupEnd;
    this.groupId = groupId;
    this.topicStart = topicStart;
    this.topicEnd = topicEnd;
    this.topic = topic;
    this.prefixStart = start;
    this.prefixLength = topicEnd + 2 - start;
    const decoded = this.offsetKey;
    decoded.groupId = groupId;
    decoded.topic = topic;
    decoded.partition = partition;
    return decoded;
  }
}

function slow(bytes: Buffer, start: number, end: number): DecodedKey {
  return decodeKey(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end));
}

/** Index of the quote closing a JSON string that starts at `from`, or -1 if it holds an escape or a control character. */
function stringEnd(key: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    const c = key[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH || c < 0x20) return -1;
  }
  return -1;
}

/** The non-negative integer written in key[from, to) as JSON writes one (no leading zero), or -1. */
function digits(key: Buffer, from: number, to: number): number {
  const length = to - from;
  if (length < 1 || length > MAX_FAST_DIGITS || (length > 1 && key[from] === ZERO)) return -1;
  let value = 0;
  for (let i = from; i < to; i++) {
    const c = key[i];
    if (c < ZERO || c > NINE) return -1;
    value = value * 10 + (c - ZERO);
  }
  return value;
}

function sameBytes(a: Buffer, aStart: number, aEnd: number, b: Buffer, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let i = 0; i < aEnd - aStart; i++) if (a[aStart + i] !== b[bStart + i]) return false;
  return true;
}
