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
  /** Topic names seen in this load, so every group's offsets share one string per topic. */
  private readonly topics = new Map<string, string>();

  decode(key: Buffer): DecodedKey {
    const n = key.length;
    if (n < 10 || key[0] !== OPEN_BRACKET || (key[1] !== ZERO + 1 && key[1] !== ZERO) || key[2] !== COMMA || key[3] !== QUOTE) return decodeKey(key);
    const groupEnd = stringEnd(key, 4);
    if (groupEnd < 0 || key[groupEnd + 1] !== COMMA || key[groupEnd + 2] !== QUOTE) return decodeKey(key);
    const topicStart = groupEnd + 3;
    const topicEnd = stringEnd(key, topicStart);
    if (topicEnd < 0 || key[topicEnd + 1] !== COMMA || key[n - 1] !== CLOSE_BRACKET) return decodeKey(key);
    const partition = digits(key, topicEnd + 2, n - 1);
    if (partition < 0) return decodeKey(key);
    const previous = this.previous;
    const groupId =
      previous !== undefined && sameBytes(key, 4, groupEnd, previous, this.groupStart, this.groupEnd) ? this.groupId : key.toString('utf8', 4, groupEnd);
    let topic: string;
    if (previous !== undefined && sameBytes(key, topicStart, topicEnd, previous, this.topicStart, this.topicEnd)) topic = this.topic;
    else {
      const read = key.toString('utf8', topicStart, topicEnd);
      topic = this.topics.get(read) ?? read;
      if (topic === read) this.topics.set(read, read);
    }
    this.previous = key;
    this.groupStart = 4;
    this.groupEnd = groupEnd;
    this.groupId = groupId;
    this.topicStart = topicStart;
    this.topicEnd = topicEnd;
    this.topic = topic;
    return { type: 'offset-commit', groupId, topic, partition };
  }
}

/** Index of the quote closing a JSON string that starts at `from`, or -1 if it holds an escape or a control character. */
function stringEnd(key: Buffer, from: number): number {
  for (let i = from; i < key.length; i++) {
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
