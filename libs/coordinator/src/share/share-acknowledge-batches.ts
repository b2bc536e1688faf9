import { RecordState, type Run, runIndexOf } from './share-partition-runs';

/**
 * Acknowledgement batches of ShareAcquire and ShareAcknowledge (docs/protocol.md): `{ firstOffset, lastOffset,
 * acknowledgeTypes }` with Kafka's types, one type for the whole batch or one per offset.
 */

/** Kafka's `AcknowledgeType` wire ids. */
export const AcknowledgeType = {
  /** No record at that offset: archived, not a dead letter. */
  GAP: 0,
  ACCEPT: 1,
  /** Back to AVAILABLE for another delivery (ARCHIVED at the delivery limit). */
  RELEASE: 2,
  /** Archived: a dead letter. */
  REJECT: 3,
  /** The lock starts again; nothing else changes (KIP-1222). */
  RENEW: 4,
} as const;
export type AckType = (typeof AcknowledgeType)[keyof typeof AcknowledgeType];

export interface AckBatch {
  firstOffset: number;
  lastOffset: number;
  acknowledgeTypes: readonly number[];
}

/** The most offsets one batch may name per offset (its types array), the window's own ceiling. */
export const MAX_PER_OFFSET_TYPES = 10_000;

/**
 * Why the batches break the protocol's rules (Kafka's `validateAcknowledgementBatches`), or null:
 * first ≤ last, ascending without overlap, types non-empty, one per offset when more than one, each 0–4.
 */
export function validateAckBatches(batches: readonly AckBatch[]): string | null {
  let previousLast = -1;
  for (const batch of batches) {
    const { firstOffset: first, lastOffset: last, acknowledgeTypes: types } = batch;
    if (!Number.isSafeInteger(first) || !Number.isSafeInteger(last) || first < 0 || last < first)
      return `batch ${first}-${last}: firstOffset must be a non-negative integer not above lastOffset`;
    if (first <= previousLast) return `batch ${first}-${last} overlaps or precedes the batch before it`;
    previousLast = last;
    if (types.length === 0) return `batch ${first}-${last} has no acknowledgeTypes`;
    if (types.length > 1 && types.length !== last - first + 1)
      return `batch ${first}-${last} has ${types.length} acknowledgeTypes: one for the batch or one per offset`;
    for (const type of types)
      if (!Number.isInteger(type) || type < 0 || type > 4)
        return `batch ${first}-${last}: acknowledge type ${type} is not 0 (gap) to 4 (renew)`;
  }
  return null;
}

/** Calls `visit` for each stretch of a batch, at or past `from`, that has one acknowledgement type. */
export function forEachTypeSpan(
  batch: AckBatch,
  from: number,
  visit: (first: number, last: number, type: AckType) => void,
): void {
  const types = batch.acknowledgeTypes;
  if (types.length === 1) {
    const first = Math.max(batch.firstOffset, from);
    if (first <= batch.lastOffset) visit(first, batch.lastOffset, types[0] as AckType);
    return;
  }
  let spanStart = -1;
  for (let offset = batch.firstOffset; offset <= batch.lastOffset + 1; offset++) {
    const type = offset <= batch.lastOffset ? types[offset - batch.firstOffset] : -1;
    if (spanStart >= 0 && (offset > batch.lastOffset || type !== types[spanStart - batch.firstOffset])) {
      const first = Math.max(spanStart, from);
      if (first <= offset - 1) visit(first, offset - 1, types[spanStart - batch.firstOffset] as AckType);
      spanStart = -1;
    }
    if (offset <= batch.lastOffset && spanStart < 0) spanStart = offset;
  }
}

/**
 * Why offsets `[first, last]` of a share partition's window are not all held by `memberId` right now, or
 * null when they are: the reasons of Kafka's InvalidRecordStateException (SharePartition
 * `acknowledgeBatchRecords`), naming the offsets.
 */
export function whyNotHeld(
  window: { readonly runs: readonly Run[]; readonly endOffset: number },
  memberId: string,
  first: number,
  last: number,
  now: number,
): string | null {
  const reason = notHeldReason(window, memberId, first, last, now);
  if (reason === null) return null;
  const named = offsets(first, last);
  return `${named[0].toUpperCase()}${named.slice(1)} cannot be acknowledged: ${reason}.`;
}

function notHeldReason(
  { runs, endOffset }: { readonly runs: readonly Run[]; readonly endOffset: number },
  memberId: string,
  first: number,
  last: number,
  now: number,
): string | null {
  if (last >= endOffset) {
    const from = Math.max(first, endOffset);
    return `${offsets(from, last)} ${from === last ? 'was' : 'were'} never acquired`;
  }
  for (let i = runIndexOf(runs, first); i < runs.length && runs[i].first <= last; i++) {
    const run = runs[i];
    const [from, to] = [Math.max(first, run.first), Math.min(last, run.last)];
    const span = offsets(from, to);
    if (run.state !== RecordState.ACQUIRED) return `${span} ${from === to ? 'is' : 'are'} not in the acquired state`;
    if (run.lease!.memberId !== memberId) return `member ${memberId} is not the owner of ${span}`;
    if (run.pending !== null)
      return `a change of ${span} is being written, the acknowledgement of delivery could not be completed`;
    if (run.lease!.deadline <= now) return `the acquisition lock of ${span} timed out`;
  }
  return null;
}

/** `offset 5` or `offsets 5-9`, for a message. */
function offsets(first: number, last: number): string {
  return first === last ? `offset ${first}` : `offsets ${first}-${last}`;
}
