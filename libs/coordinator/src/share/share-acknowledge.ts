import type * as P from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import { answer, type CoordinatorResult, PARKED } from '../runtime/coordinator-result';
import type { SharePartitionManager } from './share-partition-manager';
import type { ShareSlot, SlotChange } from './share-slot';
import { notAssigned, nothingAcquired, topicNotReadable, writeFailed } from './share-partition-errors';
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
 * (or batches that break the rules), each with a message saying so. Accepted changes are pending until
 * the write that carries them.
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
    if (!readable(topic)) {
      applied.results.push(refused(topic, partition, ErrorCode.TOPIC_AUTHORIZATION_FAILED, topicNotReadable(topic)));
      continue;
    }
    if (!assigned.has(topic, partition)) {
      const message = notAssigned(topic, partition, memberId);
      applied.results.push(refused(topic, partition, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, message));
      continue;
    }
    const slot = manager.slot(groupId, topic, partition);
    if (!slot) {
      applied.results.push(
        ack.batches.length === 0
          ? { topic, partition, errorCode: ErrorCode.NONE }
          : refused(topic, partition, ErrorCode.INVALID_REQUEST, nothingAcquired(topic, partition)),
      );
      continue;
    }
    const result = slot.state.acknowledge(memberId, ack.batches, now, limits);
    if (result.change) {
      applied.changes.push({ slot, change: result.change });
      applied.touched.push(slot);
    }
    applied.results.push(
      result.errorCode === ErrorCode.NONE
        ? { topic, partition, errorCode: ErrorCode.NONE }
        : refused(topic, partition, result.errorCode, result.message ?? errorName(result.errorCode)),
    );
  }
  return applied;
}

function refused(
  topic: string,
  partition: number,
  errorCode: number,
  errorMessage: string,
): P.ShareAcknowledgePartition {
  return { topic, partition, errorCode, errorMessage };
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
            ? refused(
                result.topic,
                result.partition,
                operationWriteError(outcome.storeError),
                writeFailed(result.topic, result.partition, 'acknowledgements', outcome),
              )
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
