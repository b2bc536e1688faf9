import { SharePartition, type SharePartitionLimits } from './share-partition';
import { RecordState, type Run } from './share-partition-runs';
import type { DurableRange, SharePartitionSnapshot } from './share-state-records';

/**
 * What of a share partition is written: the window as ranges, every held offset as AVAILABLE at the
 * count it was leased at (Kafka's persisted view of an acquisition, in a committed record here before
 * the lease leaves), with the changes still being written included (a later record holds everything
 * before it).
 *
 * `horizon` (the delivery horizon, `DeliveryHorizon.toWrite`) extends the window past the offsets
 * leased: `[endOffset, horizon)` is written as AVAILABLE at count 1, delivered once as far as the log
 * knows, so that once this record commits those offsets can be leased for the first time without a
 * write of their own. It is an ordinary range: a log written before the horizon existed loads as it
 * did, and this record loads the same way (a load brings those offsets back at count 1: one more than
 * the deliveries of an offset never actually leased, never fewer than those of one that was).
 */
export function snapshotOf(partition: SharePartition, horizon: number = partition.endOffset): SharePartitionSnapshot {
  const ranges: DurableRange[] = [];
  for (const run of partition.runs) {
    const state = run.state === RecordState.ACQUIRED ? RecordState.AVAILABLE : run.state;
    pushRange(ranges, { first: run.first, last: run.last, state, count: run.count, reason: run.reason });
  }
  const endOffset = Math.max(horizon, partition.endOffset);
  if (endOffset > partition.endOffset)
    pushRange(ranges, {
      first: partition.endOffset,
      last: endOffset - 1,
      state: RecordState.AVAILABLE,
      count: 1,
      reason: null,
    });
  return {
    stateEpoch: partition.stateEpoch,
    startOffset: partition.startOffset,
    endOffset,
    ranges,
    deadLetters: partition.deadLetters.map((d) => ({ ...d })),
  };
}

/** Appends `range`, merged into the last one when it follows it with the same state, count and reason. */
function pushRange(ranges: DurableRange[], range: DurableRange): void {
  const previous = ranges[ranges.length - 1];
  if (
    previous &&
    previous.last + 1 === range.first &&
    previous.state === range.state &&
    previous.count === range.count &&
    previous.reason === range.reason
  )
    previous.last = range.last;
  else ranges.push(range);
}

/**
 * A share partition brought back from its record (Kafka's `SharePartition.maybeInitialize`): nothing is
 * held any more, offsets delivered `deliveryCountLimit` times are archived, and SPSO moves past the
 * leading offsets that are done. True in `changed` when loading changed it (to be written again).
 */
export function partitionFromSnapshot(
  snapshot: SharePartitionSnapshot,
  limits: SharePartitionLimits,
): { partition: SharePartition; changed: boolean } {
  const runs: Run[] = [];
  let cursor = snapshot.startOffset;
  for (const range of snapshot.ranges) {
    if (range.last < cursor) continue;
    const first = Math.max(range.first, cursor);
    // A hole (a record written by hand, or a merge) is offsets nobody was given: available.
    if (first > cursor) runs.push(run(cursor, first - 1, RecordState.AVAILABLE, 0, null));
    runs.push(run(first, range.last, range.state, range.count, range.reason));
    cursor = range.last + 1;
  }
  const endOffset = Math.max(snapshot.endOffset, cursor);
  if (cursor < endOffset) runs.push(run(cursor, endOffset - 1, RecordState.AVAILABLE, 0, null));
  const partition = new SharePartition(
    snapshot.stateEpoch,
    snapshot.startOffset,
    endOffset,
    runs,
    snapshot.deadLetters.map((d) => ({ ...d })),
  );
  const startBefore = partition.startOffset;
  const archived = partition.archiveOverLimit(limits);
  partition.advanceStart();
  return { partition, changed: archived || partition.startOffset !== startBefore };
}

function run(first: number, last: number, state: Run['state'], count: number, reason: Run['reason']): Run {
  return { first, last, state, count, lease: null, reason, pending: null };
}
