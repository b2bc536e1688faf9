import type * as P from '@cohort/protocol';
import type { GroupView } from '../ports/group-coordinator.api';
import type { ShareSlot } from '../share/share-partition-manager';
import type { CoordinatorShard } from '../shard/coordinator-shard';

/**
 * What REST shows of a share group (KIP-932, docs/rest.md): per share partition its start offset (SPSO),
 * the end producers reported, how many offsets are in each state and the oldest lease's age; its dead
 * letters and their redelivery go through the coordinator's share partition APIs. Read from the shard's share
 * partitions, which hold only what their records committed or are writing.
 */

function bySlot(a: ShareSlot, b: ShareSlot): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

function partitionView(slot: ShareSlot, now: number): P.SharePartitionView {
  const { available, acquired, acknowledged, archived, oldestLeaseAgeMs } = slot.state.summary(now);
  return {
    topic: slot.topic,
    partition: slot.partition,
    startOffset: slot.state.startOffset,
    endOffset: slot.state.reportedEnd,
    stateEpoch: slot.state.stateEpoch,
    offsets: { available, acquired, acknowledged, archived },
    oldestLeaseAgeMs,
  };
}

/** The share group of `groupId` on this shard, or undefined when it has no share partition here. */
export function shareGroupView(shard: CoordinatorShard, groupId: string, now: number): GroupView | undefined {
  const slots = shard.sharePartitions.slotsOf(groupId).sort(bySlot);
  if (slots.length === 0) return undefined;
  return {
    groupId,
    type: 'share',
    // Membership (ShareGroupHeartbeat) tells who works the partitions; until it reports members, none.
    state: 'Empty',
    protocolType: 'share',
    protocol: null,
    generationId: 0,
    leader: null,
    coordinatorPartition: shard.partition,
    members: [],
    sharePartitions: slots.map((slot) => partitionView(slot, now)),
  };
}
