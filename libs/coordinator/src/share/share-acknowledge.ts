import type * as P from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import { answer, type CoordinatorResult, PARKED } from '../runtime/coordinator-result';
import type { SharePartitionManager } from './share-partition-manager';
import type { ShareSlot, SlotChange } from './share-slot';
import type { ShareAssignment } from './share-assignment';

import type { TopicReadable } from './share-ports';

export type { TopicReadable };

/** What a request's acknowledgements did: per partition its code, and the changes to write. */
export interface AppliedAcknowledgements {
  results: P.ShareAcknowledgePartition[];
  changes: SlotChange[];
  touched: ShareSlot[];
}

/** What a request without acknowledgements applied (shared: nobody adds to it). */
const NONE_APPLIED: AppliedAcknowledgements = Object.freeze({
  results: Object.freeze([]) as unknown as P.ShareAcknowledgePartition[],
  changes: Object.freeze([]) as unknown as SlotChange[],
  touched: Object.freeze([]) as unknown as ShareSlot[],
});

/**
 * Applies a member's acknowledgements, partition by partition, each all or nothing: 29 for a topic the
 * caller may not read, 3 for a partition not assigned to the member, 42 for offsets it does not hold
 * (or batches that break the rules). Accepted changes are pending until the write that carries them.
 */
export function applyAcknowledgements(
  manager: SharePartitionManager,
  groupId: string,
  memberId: string,
  acknowledgements: readonly P.ShareAcknowledgement[],
  assigned: ShareAssignment,
  readable: TopicReadable,
): AppliedAcknowledgements {
  // Most acquires carry no acknowledgements: nothing is allocated for those.
  if (acknowledgements.length === 0) return NONE_APPLIED;
  const applied: AppliedAcknowledgements = { results: [], changes: [], touched: [] };
  const now = manager.now;
  const limits = manager.limits;
  for (const ack of acknowledgements) {
    const { topic, partition } = ack;
    let errorCode: number = ErrorCode.NONE;
    if (!readable(topic)) errorCode = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
    else if (!assigned.has(topic, partition)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    else {
      const slot = manager.slot(groupId, topic, partition);
      const result = slot
        ? slot.state.acknowledge(memberId, ack.batches, now, limits)
        : { errorCode: ack.batches.length === 0 ? ErrorCode.NONE : ErrorCode.INVALID_REQUEST, change: null };
      errorCode = result.errorCode;
      if (slot && result.change) {
        applied.changes.push({ slot, change: result.change });
        applied.touched.push(slot);
      }
    }
    applied.results.push({ topic, partition, errorCode });
  }
  return applied;
}

/**
 * ShareAcknowledge: the member's acknowledgements, answered once their records are committed (a failed
 * write takes them back and answers the error on the partitions it carried).
 */
export function shareAcknowledge(
  manager: SharePartitionManager,
  request: P.ShareAcknowledgeRequest,
  readable: TopicReadable,
): CoordinatorResult<P.ShareAcknowledgeResponse> {
  const assigned = manager.membership.assignedPartitions(request.groupId, request.memberId);
  if (typeof assigned === 'number') return answer(shareAcknowledgeError(assigned));
  const applied = applyAcknowledgements(
    manager,
    request.groupId,
    request.memberId,
    request.acknowledgements,
    assigned,
    readable,
  );
  const response: P.ShareAcknowledgeResponse = { errorCode: ErrorCode.NONE, partitions: applied.results };
  const write = manager.write(applied.touched, applied.changes, (outcome) => {
    if (outcome.ok) countAcknowledged(manager, request.acknowledgements, applied.results);
  });
  if (write === PARKED) return answer(response);
  // Records of its own, or none when the turn's earlier writes carry its slots (it then waits for them).
  return {
    records: write.records,
    appendFuture: write.appendFuture,
    awaitsPendingWrites: write.awaitsPendingWrites,
    response,
    onFailure: (outcome) => {
      // The slots the write carried, gathered only if it fails.
      const written = new Set(applied.changes.map(({ slot }) => slot));
      return {
        errorCode: ErrorCode.NONE,
        partitions: applied.results.map((result) =>
          [...written].some((s) => s.topic === result.topic && s.partition === result.partition)
            ? { ...result, errorCode: operationWriteError(outcome.storeError) }
            : result,
        ),
      };
    },
  };
}

const TYPE_NAMES = ['gap', 'accept', 'release', 'reject'] as const;

/** Reports the offsets acknowledged per type, of the partitions whose acknowledgements were taken. */
export function countAcknowledged(
  manager: SharePartitionManager,
  acknowledgements: readonly P.ShareAcknowledgement[],
  results: readonly P.ShareAcknowledgePartition[],
): void {
  const report = manager.metrics.onShareOffsetsAcknowledged;
  if (!report) return;
  const counts = [0, 0, 0, 0];
  acknowledgements.forEach((ack, i) => {
    if (results[i]?.errorCode !== ErrorCode.NONE) return;
    for (const batch of ack.batches) {
      const types = batch.acknowledgeTypes;
      if (types.length === 1) {
        if (types[0] < 4) counts[types[0]] += batch.lastOffset - batch.firstOffset + 1;
      } else for (const type of types) if (type < 4) counts[type]++;
    }
  });
  counts.forEach((count, type) => {
    if (count > 0) report.call(manager.metrics, TYPE_NAMES[type], count);
  });
}

export function shareAcknowledgeError(code: number, message?: string): P.ShareAcknowledgeResponse {
  return {
    errorCode: code,
    errorName: errorName(code),
    ...(message === undefined ? {} : { errorMessage: message }),
    partitions: [],
  };
}
