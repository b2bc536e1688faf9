import { ErrorCode, KafkaError } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { SharePartitionManager } from './share-partition-manager';

/** Archived offsets a reject or the delivery limit put there. */
export interface DeadLetterView {
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
  reason: 'rejected' | 'delivery-limit';
  deliveryCount: number;
}

/** How many offsets came back, and whether their record was written (0) or the write's error. */
export interface RedeliverResult {
  errorCode: number;
  redelivered: number;
}

/** The group's dead letters, by topic, partition and offset. */
export function deadLetterViews(manager: SharePartitionManager, groupId: string): DeadLetterView[] {
  return manager
    .slotsOf(groupId)
    .sort(byTopicPartition)
    .flatMap(({ topic, partition, state }) =>
      state.deadLetterList().map((d) => ({
        topic,
        partition,
        firstOffset: d.first,
        lastOffset: d.last,
        reason: d.reason,
        deliveryCount: d.count,
      })),
    );
}

/**
 * Dead letters of `[firstOffset, lastOffset]` made available again, counted from zero, answered once
 * written (held acquires wake then). 69 when the group has no state for that partition here.
 */
export function redeliverDeadLetters(
  manager: SharePartitionManager,
  groupId: string,
  topic: string,
  partition: number,
  firstOffset: number,
  lastOffset: number,
): CoordinatorResult<RedeliverResult> {
  const slot = manager.slot(groupId, topic, partition);
  if (!slot)
    throw new KafkaError(
      ErrorCode.GROUP_ID_NOT_FOUND,
      `share group '${groupId}' has no state for ${topic}-${partition}`,
    );
  if (!(firstOffset <= lastOffset))
    throw KafkaError.of('INVALID_REQUEST', `firstOffset ${firstOffset} is above lastOffset ${lastOffset}`);
  const redelivered = slot.state.redeliver(firstOffset, lastOffset);
  const response: RedeliverResult = { errorCode: ErrorCode.NONE, redelivered };
  if (redelivered === 0) return { records: [], response };
  manager.availableNow(slot);
  const write = manager.write([slot], [], () => undefined);
  // A failed write leaves them available here; the partition's next write carries them.
  return {
    records: write.records,
    appendFuture: write.appendFuture,
    response,
    onFailure: (outcome) => ({ errorCode: operationWriteError(outcome.storeError), redelivered }),
  };
}

function byTopicPartition(a: { topic: string; partition: number }, b: { topic: string; partition: number }): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}
