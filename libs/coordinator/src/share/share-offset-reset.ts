import { ErrorCode, KafkaError } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { SharePartitionManager } from './share-partition-manager';

/** One share partition's new start offset (SPSO). */
export interface ShareStartOffset {
  topic: string;
  partition: number;
  startOffset: number;
}

/** Operators: a share group's partitions moved to new start offsets (Kafka's AlterShareGroupOffsets). */
export interface ShareOffsetsResetCall {
  groupId: string;
  offsets: ShareStartOffset[];
}

/** Whether the new start offsets were committed (0) or the write's error. */
export interface ShareOffsetsResetResult {
  errorCode: number;
}

/**
 * Kafka's AlterShareGroupOffsets over this shard's share partitions: refused with NON_EMPTY_GROUP while
 * the group has members; otherwise each partition named starts afresh at its new SPSO under a new state
 * epoch (InitializeShareGroupState): its leases, acknowledgements, archives and dead letters are
 * discarded and delivery counts start from zero; a partition the group never worked is initialised
 * there. All partitions are one write, answered once it is committed; a failed write puts every
 * partition back as it was.
 */
export function resetShareOffsets(
  manager: SharePartitionManager,
  members: number,
  call: ShareOffsetsResetCall,
): CoordinatorResult<ShareOffsetsResetResult> {
  const { groupId, offsets } = call;
  if (members > 0)
    throw KafkaError.of(
      'NON_EMPTY_GROUP',
      `share group '${groupId}' is Stable with ${members} member(s); its start offsets can be reset only while it is Empty (stop its members first)`,
    );
  const named = new Set<string>();
  for (const { topic, partition, startOffset } of offsets) {
    if (!Number.isSafeInteger(startOffset) || startOffset < 0)
      throw KafkaError.of('INVALID_REQUEST', `${topic}-${partition}: a start offset cannot be ${startOffset}`);
    const key = `${topic}\u0000${partition}`;
    if (named.has(key)) throw KafkaError.of('INVALID_REQUEST', `${topic}-${partition} is named more than once`);
    named.add(key);
  }
  const response: ShareOffsetsResetResult = { errorCode: ErrorCode.NONE };
  if (offsets.length === 0) return { records: [], response };
  // Replaced now, so a write of these partitions that follows in the log carries the new state epoch.
  const replaced = offsets.map(({ topic, partition, startOffset }) =>
    manager.replaceState(groupId, topic, partition, startOffset),
  );
  const write = manager.write(
    replaced.map(({ slot }) => slot),
    [],
    (outcome) => {
      if (!outcome.ok) for (const { restore } of replaced) restore();
    },
  );
  return {
    records: write.records,
    appendFuture: write.appendFuture,
    response,
    onFailure: (outcome) => ({ errorCode: operationWriteError(outcome.storeError) }),
  };
}
