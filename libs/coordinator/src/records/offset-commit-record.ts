import type { OffsetAndMetadata } from '../group/group-offsets';
import { encodeJson, isInteger, isNullableInteger, isString, parseJson, requireField, requireObject } from './record-codec';

/** OffsetCommitValue as written: Kafka's v3 fields (v1 adds `expireTimestamp`, read for old records). */
const WRITE_VERSION = 3;
const WHAT = 'offset commit value';

export function encodeOffsetCommitValue(value: OffsetAndMetadata): Buffer {
  const record: Record<string, unknown> = {
    v: value.expireTimestamp === null ? WRITE_VERSION : 1,
    offset: value.offset,
    leaderEpoch: value.leaderEpoch,
    metadata: value.metadata,
    commitTimestamp: value.commitTimestamp,
  };
  if (value.expireTimestamp !== null) record.expireTimestamp = value.expireTimestamp;
  return encodeJson(record);
}

export function decodeOffsetCommitValue(bytes: Buffer): OffsetAndMetadata {
  const o = requireObject(parseJson(bytes, 'value'), WHAT);
  const leaderEpoch = o.leaderEpoch === undefined ? -1 : requireField(o, 'leaderEpoch', isInteger, WHAT);
  const expireTimestamp = o.expireTimestamp === undefined ? null : requireField(o, 'expireTimestamp', isNullableInteger, WHAT);
  return {
    offset: requireField(o, 'offset', isInteger, WHAT),
    leaderEpoch,
    metadata: requireField(o, 'metadata', isString, WHAT),
    commitTimestamp: requireField(o, 'commitTimestamp', isInteger, WHAT),
    expireTimestamp,
  };
}
