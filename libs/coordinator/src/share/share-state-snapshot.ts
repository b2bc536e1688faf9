import { SharePartition, type SharePartitionLimits } from './share-partition';
import { RecordState, type Run } from './share-partition-runs';
import type { SharePartitionSnapshot } from './share-state-records';

/**
 * What of a share partition is written: the window as ranges, every held offset as AVAILABLE at the
 * count it was leased at (Kafka's persisted view of an acquisition, written here before the lease
 * leaves), with the changes still being written included (a later record holds everything before it).
 */
export function snapshotOf(partition: SharePartition): SharePartitionSnapshot {
  const ranges: SharePartitionSnapshot['ranges'] = [];
  for (const run of partition.runs) {
    const state = run.state === RecordState.ACQUIRED ? RecordState.AVAILABLE : run.state;
    const previous = ranges[ranges.length - 1];
    if (
      previous &&
      previous.last + 1 === run.first &&
      previous.state === state &&
      previous.count === run.count &&
      previous.reason === run.reason
    )
      previous.last = run.last;
    else ranges.push({ first: run.first, last: run.last, state, count: run.count, reason: run.reason });
  }
  return {
    stateEpoch: partition.stateEpoch,
    startOffset: partition.startOffset,
    endOffset: partition.endOffset,
    ranges,
    deadLetters: partition.deadLetters.map((d) => ({ ...d })),
  };
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
