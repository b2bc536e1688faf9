/**
 * `__consumer_offsets` records as Cohort writes them. Like Kafka, a key starts with its version, and the
 * key version is the record type (0/1 offset commit, 2 group metadata; K:GMM `readMessageKey`). Keys are
 * JSON arrays of primitives, so one logical key is always the same bytes and compaction keeps the latest
 * record per key; values are JSON objects with a version field `v`. A null value is a tombstone.
 */
export const RecordType = {
  /** Kafka's key versions 0 and 1. */
  OFFSET_COMMIT: 1,
  GROUP_METADATA: 2,
} as const;

export type DecodedKey =
  | { type: 'offset-commit'; groupId: string; topic: string; partition: number }
  | { type: 'group-metadata'; groupId: string }
  | { type: 'unknown'; version: unknown };

export class RecordDecodeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordDecodeError';
  }
}

export function offsetCommitKey(groupId: string, topic: string, partition: number): Buffer {
  return Buffer.from(JSON.stringify([RecordType.OFFSET_COMMIT, groupId, topic, partition]), 'utf8');
}

export function groupMetadataKey(groupId: string): Buffer {
  return Buffer.from(JSON.stringify([RecordType.GROUP_METADATA, groupId]), 'utf8');
}

export function decodeKey(key: Buffer): DecodedKey {
  const parsed = parseJson(key, 'key');
  if (!Array.isArray(parsed) || parsed.length === 0)
    throw new RecordDecodeError('a record key must be a non-empty JSON array');
  const [version] = parsed;
  if ((version === 0 || version === RecordType.OFFSET_COMMIT) && parsed.length === 4) {
    const [, groupId, topic, partition] = parsed;
    if (typeof groupId === 'string' && typeof topic === 'string' && Number.isInteger(partition)) {
      return { type: 'offset-commit', groupId, topic, partition: partition as number };
    }
    throw new RecordDecodeError(`malformed offset commit key ${key.toString('utf8')}`);
  }
  if (version === RecordType.GROUP_METADATA && parsed.length === 2 && typeof parsed[1] === 'string') {
    return { type: 'group-metadata', groupId: parsed[1] };
  }
  return { type: 'unknown', version };
}

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

export function parseJson(bytes: Buffer, what: string): unknown {
  try {
    return JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new RecordDecodeError(`record ${what} is not valid JSON`);
  }
}

export function requireObject(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new RecordDecodeError(`${what} must be a JSON object`);
  }
  return value as Record<string, unknown>;
}

export function requireField<T>(
  object: Record<string, unknown>,
  field: string,
  check: (v: unknown) => v is T,
  what: string,
): T {
  const value = object[field];
  if (!check(value)) throw new RecordDecodeError(`${what}.${field} is missing or has the wrong type`);
  return value;
}

export const isString = (v: unknown): v is string => typeof v === 'string';
export const isNullableString = (v: unknown): v is string | null => v === null || typeof v === 'string';
export const isInteger = (v: unknown): v is number => Number.isSafeInteger(v);
export const isNullableInteger = (v: unknown): v is number | null => v === null || Number.isSafeInteger(v);
