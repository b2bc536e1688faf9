import type { LogRecord } from '@cohort/replication';
import {
  encodeJson,
  isInteger,
  parseJson,
  RecordDecodeError,
  requireField,
  requireObject,
} from '../records/record-codec';
import type { ArchiveReason, DeadLetterReason, RecordStateId } from './share-partition-runs';
import { RecordState } from './share-partition-runs';

/**
 * The durable state of a share partition in `__consumer_offsets` (Cohort's own record: Kafka keeps it in
 * `__share_group_state` as ShareSnapshot/ShareUpdate). One key per (group, topic, partition), and every
 * write is a whole snapshot of the window, run-length encoded, so compaction, which keeps the last
 * record of a key, keeps a state that is complete by itself, and the load takes each key's last record
 * (`ShareStateReplay`). A null value is a tombstone (the group or its state was deleted).
 *
 * Key `[100, groupId, topic, partition]`; value `{ v, stateEpoch, startOffset, endOffset, ranges:
 * [[first, last, state, count, reason]], deadLetters: [[first, last, reason, count]] }`. An offset a member
 * holds is written as AVAILABLE with the count it was leased at (the lease is in a committed record
 * before it leaves, so a delivery count never goes down after a failover); owners and deadlines stay in
 * memory. The window may reach past the offsets ever leased, up to the delivery horizon
 * (share-partition-horizon.ts), as AVAILABLE at count 1: nothing tells those offsets from leased ones,
 * so the value's layout and version are as before and a log written before the horizon loads the same.
 */
export const SHARE_PARTITION_STATE_RECORD_TYPE = 100;

const WRITE_VERSION = 0;

const REASON_CODES: readonly (ArchiveReason | null)[] = [null, 'gap', 'rejected', 'delivery-limit', 'log-start'];
const STATES: readonly number[] = [RecordState.AVAILABLE, RecordState.ACKNOWLEDGED, RecordState.ARCHIVED];

export interface SharePartitionStateKey {
  groupId: string;
  topic: string;
  partition: number;
}

export interface DurableRange {
  first: number;
  last: number;
  state: RecordStateId;
  count: number;
  reason: ArchiveReason | null;
}

export interface DurableDeadLetter {
  first: number;
  last: number;
  reason: DeadLetterReason;
  count: number;
}

/** A share partition as its record holds it. */
export interface SharePartitionSnapshot {
  stateEpoch: number;
  startOffset: number;
  /** The first offset never leased: `[startOffset, endOffset)` is the window `ranges` covers. */
  endOffset: number;
  ranges: DurableRange[];
  deadLetters: DurableDeadLetter[];
}

export function sharePartitionStateKey(groupId: string, topic: string, partition: number): Buffer {
  return encodeJson([SHARE_PARTITION_STATE_RECORD_TYPE, groupId, topic, partition]);
}

/** The share partition state key `parsed` (a decoded key array), or undefined when it is not one. */
export function decodeSharePartitionStateKey(parsed: unknown): SharePartitionStateKey | undefined {
  if (!Array.isArray(parsed) || parsed.length !== 4 || parsed[0] !== SHARE_PARTITION_STATE_RECORD_TYPE)
    return undefined;
  const [, groupId, topic, partition] = parsed as unknown[];
  if (
    typeof groupId !== 'string' ||
    typeof topic !== 'string' ||
    !Number.isInteger(partition) ||
    (partition as number) < 0
  )
    throw new RecordDecodeError(`malformed share partition state key ${JSON.stringify(parsed)}`);
  return { groupId, topic, partition: partition as number };
}

export function sharePartitionStateRecord(
  key: SharePartitionStateKey,
  state: SharePartitionSnapshot,
  now: number,
): LogRecord {
  return {
    key: sharePartitionStateKey(key.groupId, key.topic, key.partition),
    value: sharePartitionStateValue(state),
    timestamp: now,
  };
}

/** The value of a share partition state record holding `state` (for a key encoded already). */
export function sharePartitionStateValue(state: SharePartitionSnapshot): Buffer {
  return encodeJson({
    v: WRITE_VERSION,
    stateEpoch: state.stateEpoch,
    startOffset: state.startOffset,
    endOffset: state.endOffset,
    ranges: state.ranges.map((r) => [r.first, r.last, r.state, r.count, REASON_CODES.indexOf(r.reason)]),
    deadLetters: state.deadLetters.map((d) => [d.first, d.last, REASON_CODES.indexOf(d.reason), d.count]),
  });
}

export function sharePartitionStateTombstone(key: SharePartitionStateKey, now: number): LogRecord {
  return { key: sharePartitionStateKey(key.groupId, key.topic, key.partition), value: null, timestamp: now };
}

export function decodeSharePartitionSnapshot(bytes: Buffer): SharePartitionSnapshot {
  const what = 'share partition state value';
  const o = requireObject(parseJson(bytes, 'value'), what);
  const startOffset = requireField(o, 'startOffset', isInteger, what);
  const endOffset = requireField(o, 'endOffset', isInteger, what);
  if (startOffset < 0 || endOffset < startOffset)
    throw new RecordDecodeError(`${what}: a window ${startOffset}-${endOffset}`);
  const ranges = tuples(o.ranges, 5, `${what}.ranges`).map(([first, last, state, count, reason]) => {
    if (!STATES.includes(state)) throw new RecordDecodeError(`${what}.ranges: state ${state}`);
    return { first, last, state: state as RecordStateId, count, reason: reasonOf(reason, what) };
  });
  const deadLetters = tuples(o.deadLetters, 4, `${what}.deadLetters`).map(([first, last, reason, count]) => {
    const decoded = reasonOf(reason, what);
    if (decoded !== 'rejected' && decoded !== 'delivery-limit')
      throw new RecordDecodeError(`${what}.deadLetters: reason ${reason}`);
    return { first, last, reason: decoded, count };
  });
  return { stateEpoch: requireField(o, 'stateEpoch', isInteger, what), startOffset, endOffset, ranges, deadLetters };
}

function reasonOf(code: number, what: string): ArchiveReason | null {
  const reason = REASON_CODES[code];
  if (reason === undefined) throw new RecordDecodeError(`${what}: archive reason ${code}`);
  return reason;
}

/** An array of integer tuples of `size`, each `[first, last, ...]` with first ≤ last, ascending without overlap. */
function tuples(raw: unknown, size: number, what: string): number[][] {
  if (!Array.isArray(raw)) throw new RecordDecodeError(`${what} must be an array`);
  let previousLast = -1;
  return raw.map((tuple: unknown) => {
    if (!Array.isArray(tuple) || tuple.length !== size || !tuple.every(isInteger))
      throw new RecordDecodeError(`${what}: each entry is ${size} integers`);
    const [first, last] = tuple as number[];
    if (first > last || first <= previousLast) throw new RecordDecodeError(`${what}: ranges out of order`);
    previousLast = last;
    return tuple as number[];
  });
}
