import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { ShareAssignment } from './share-assignment';
import type { SharePartitionManager } from './share-partition-manager';
import type { TopicReadable } from './share-ports';
import type { ShareSlot, SlotChange } from './share-slot';
import { topicNotReadable } from './share-partition-errors';

/**
 * What one pass of leasing did: the changes to write (and the slots whose records carry them or
 * another change, a partition created or moved by the log start), and the slots that leased only new
 * offsets under their committed horizon, which nothing needs to write.
 */
export interface Leased {
  changes: SlotChange[];
  touched: ShareSlot[];
  covered: ShareSlot[];
}

export const NOTHING_LEASED: Leased = Object.freeze({ changes: [], touched: [], covered: [] });

/**
 * Leases for one acquire across the assigned partitions, in the assignment's order from a rotating
 * position (so no partition starves the others), within `maxRecords` and GROUP_SHARE_MAX_ACQUIRE_RECORDS;
 * the partitions of a topic the caller may not read answer 29. Partitions without state yet are started
 * first, a bounded step of them (share-assignment-starts.ts). Of the partitions with state, only the
 * group's lease candidates are visited (share-lease-candidates.ts), those that may have offsets to lease:
 * the ones passed over would lease nothing, so what an acquire leases is what a walk of every one of them
 * leased, in the same order, and what it costs follows the partitions it can lease from.
 */
export function lease(
  manager: SharePartitionManager,
  request: P.ShareAcquireRequest,
  assigned: ShareAssignment,
  readable: TopicReadable,
  entry: (topic: string, partition: number) => P.ShareAcquirePartition,
): Leased {
  const { groupId, memberId } = request;
  const started = manager.startAssigned(groupId, memberId, assigned, readable);
  const changes: SlotChange[] = [];
  const touched: ShareSlot[] = started.length > 0 ? started : [];
  const covered: ShareSlot[] = [];
  const limits = manager.limits;
  const now = manager.now;
  const batchSize = request.batchSize ?? request.maxRecords;
  // GROUP_SHARE_MAX_ACQUIRE_RECORDS bounds every answer, so none nears the socket output limit and no
  // offset's delivery count moves for a lease its answer could not carry.
  let budget = Math.min(request.maxRecords, manager.maxAcquireRecords);
  if (assigned.size === 0) return { changes, touched, covered };
  const start = manager.nextAcquireRotation() % assigned.size;
  const visit = (topic: string, partition: number): boolean => {
    const { slot, changed } = manager.slotFor(groupId, topic, partition);
    if (changed || slot.state.archiveOverLimit(limits)) touched.push(slot);
    const { leases, change } = slot.state.acquire(memberId, budget, batchSize, now, limits);
    manager.visited(slot);
    if (leases.length === 0) return true;
    if (change) {
      touched.push(slot);
      changes.push({ slot, change });
    } else {
      // Nothing to write: the lease's lock is armed now.
      covered.push(slot);
      manager.armLockTimer(slot);
    }
    entry(topic, partition).leases.push(...leases);
    for (const l of leases) budget -= l.lastOffset - l.firstOffset + 1;
    return budget > 0;
  };
  if (budget > 0)
    inRotation(assigned, start, (topic, partitions, from, to) => {
      if (readable(topic))
        return manager.candidates.forEachIn(groupId, topic, partitions, from, to, (p) => visit(topic, p));
      const errorMessage = topicNotReadable(topic);
      for (let i = from; i < to; i++)
        Object.assign(entry(topic, partitions[i]), { errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED, errorMessage });
      return true;
    });
  return { changes, touched, covered };
}

/**
 * The assignment's positions from `start` round to `start - 1`, as runs of one topic's partitions
 * (`partitions[from..to)`), each passed to `run` until it returns false.
 */
function inRotation(
  assigned: ShareAssignment,
  start: number,
  run: (topic: string, partitions: readonly number[], from: number, to: number) => boolean,
): void {
  const { topics } = assigned;
  const { topicIndex, index } = assigned.locate(start);
  const first = topics[topicIndex];
  if (!run(first.topic, first.partitions, index, first.partitions.length)) return;
  for (let t = 1; t < topics.length; t++) {
    const { topic, partitions } = topics[(topicIndex + t) % topics.length];
    if (!run(topic, partitions, 0, partitions.length)) return;
  }
  if (index > 0) run(first.topic, first.partitions, 0, index);
}
