import type * as P from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import { type CoordinatorResult, PARKED, type WriteOutcome } from '../runtime/coordinator-result';
import { applyAcknowledgements, countAcknowledged, type TopicReadable } from './share-acknowledge';
import type { SharePartitionManager } from './share-partition-manager';
import type { SlotChange } from './share-slot';
import { AnswerPartitions } from './share-acquire-answer-partitions';
import { lease, type Leased, NOTHING_LEASED } from './share-lease';
import { writeFailed } from './share-partition-errors';

/**
 * ShareAcquire (KIP-932's ShareFetch over offsets): the piggy-backed acknowledgements first, then leases
 * of the member's assigned partitions, at most `maxRecords` (and GROUP_SHARE_MAX_ACQUIRE_RECORDS) in all. The leases (as AVAILABLE at their
 * new delivery count) are written before the answer leaves, so a count never goes down after a
 * failover, except leases of new offsets below their partition's committed delivery horizon, which the
 * log already counts delivered once: those need no write, and an acquire with nothing else to write
 * (no acknowledgements, no partition created or changed) is answered at once. With nothing to lease the
 * request is held up to `maxWaitMs` and answered as soon as a partition can lease again; its
 * acknowledgements are written meanwhile. The answer goes to `respond`.
 */
export function shareAcquire(
  manager: SharePartitionManager,
  request: P.ShareAcquireRequest,
  readable: TopicReadable,
  respond: (response: P.ShareAcquireResponse) => void,
): CoordinatorResult<never> {
  const { groupId, memberId } = request;
  const assigned = manager.membership.assignedPartitions(groupId, memberId);
  if (typeof assigned === 'number') {
    respond(shareAcquireError(assigned));
    return PARKED;
  }
  const entries = new AnswerPartitions();
  const entry = (topic: string, partition: number): P.ShareAcquirePartition => entries.of(topic, partition);
  const acks = applyAcknowledgements(manager, groupId, memberId, request.acknowledgements ?? [], assigned, readable);
  for (const result of acks.results) {
    const e = entry(result.topic, result.partition);
    e.acknowledgeErrorCode = result.errorCode;
    if (result.errorMessage !== undefined) e.acknowledgeErrorMessage = result.errorMessage;
  }
  let answered = false;
  const answer = (errorCode: number = ErrorCode.NONE): void => {
    if (answered) return;
    answered = true;
    const partitions = entries.answered(
      (e) => e.leases.length > 0 || e.errorCode !== 0 || e.acknowledgeErrorCode !== 0 || hasAck(request, e),
    );
    const acquisitionLockTimeoutMs = manager.limits.lockDurationMs;
    // The same fields in the same order either way; a success is built without a spread of a literal.
    respond(
      errorCode === ErrorCode.NONE
        ? { errorCode, acquisitionLockTimeoutMs, partitions }
        : { ...shareAcquireError(errorCode), acquisitionLockTimeoutMs, partitions },
    );
  };
  const failed = (outcome: WriteOutcome, leased: Leased, acked: readonly SlotChange[]) => {
    if (outcome.ok) {
      if (acked.length > 0) countAcknowledged(manager, request.acknowledgements ?? [], acks.results);
      let count = leased.changes.reduce((n, { slot }) => n + leasedIn(entry(slot.topic, slot.partition)), 0);
      for (const slot of leased.covered) count += leasedIn(entry(slot.topic, slot.partition));
      if (count > 0) manager.metrics.onShareOffsetsLeased?.(count);
      return;
    }
    // A failed write takes back the leases it carried; those under the horizon were never in it.
    const code = operationWriteError(outcome.storeError);
    for (const { slot } of leased.changes)
      Object.assign(entry(slot.topic, slot.partition), {
        errorCode: code,
        errorMessage: writeFailed(slot.topic, slot.partition, 'leases', outcome),
        leases: [],
      });
    for (const { slot } of acked)
      Object.assign(entry(slot.topic, slot.partition), {
        acknowledgeErrorCode: code,
        acknowledgeErrorMessage: writeFailed(slot.topic, slot.partition, 'acknowledgements', outcome),
      });
  };

  const first = lease(manager, request, assigned, readable, entry);
  const maxWaitMs = request.maxWaitMs ?? 0;
  if (first.changes.length > 0 || first.covered.length > 0 || maxWaitMs <= 0) {
    return manager.write(both(acks.touched, first.touched), both(acks.changes, first.changes), (outcome) => {
      failed(outcome, first, acks.changes);
      answer();
    });
  }
  // Nothing to lease: held. The acknowledgements (and any new partition's start) are written meanwhile;
  // a later write commits after them, so a woken answer that writes follows their outcome, and one that
  // writes nothing (leases under the horizon) waits for it.
  let acksSettled = false;
  let waitOver: number | undefined;
  let leasedMeanwhile = false;
  manager.waiters.park(
    {
      groupId,
      memberId,
      attempt: () => {
        const now = manager.membership.assignedPartitions(groupId, memberId);
        if (typeof now === 'number') return false;
        const again = lease(manager, request, now, readable, entry);
        if (again.changes.length === 0 && again.covered.length === 0) {
          if (again.touched.length > 0) manager.submit(manager.write(again.touched, [], () => undefined));
          return false;
        }
        manager.submit(
          manager.write(again.touched, again.changes, (outcome) => {
            failed(outcome, again, []);
            if (acksSettled) answer();
            else leasedMeanwhile = true;
          }),
        );
        return true;
      },
      finish: (errorCode) => {
        waitOver = errorCode;
        if (acksSettled) answer(errorCode);
      },
    },
    maxWaitMs,
  );
  return manager.write(both(acks.touched, first.touched), acks.changes, (outcome) => {
    failed(outcome, NOTHING_LEASED, acks.changes);
    acksSettled = true;
    if (leasedMeanwhile) answer();
    else if (waitOver !== undefined) answer(waitOver);
  });
}

/** `a` then `b`; `b` itself when `a` is empty (an acquire without acknowledgements, nearly all of them). */
function both<T>(a: readonly T[], b: readonly T[]): readonly T[] {
  return a.length === 0 ? b : [...a, ...b];
}

function leasedIn(partition: P.ShareAcquirePartition): number {
  return partition.leases.reduce((n, l) => n + l.lastOffset - l.firstOffset + 1, 0);
}

function hasAck(request: P.ShareAcquireRequest, e: P.ShareAcquirePartition): boolean {
  const acks = request.acknowledgements;
  return acks !== undefined && acks.some((a) => a.topic === e.topic && a.partition === e.partition);
}

export function shareAcquireError(code: number, message?: string): P.ShareAcquireResponse {
  return {
    errorCode: code,
    errorName: errorName(code),
    ...(message === undefined ? {} : { errorMessage: message }),
    acquisitionLockTimeoutMs: 0,
    partitions: [],
  };
}
