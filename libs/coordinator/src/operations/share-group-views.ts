import type * as P from '@cohort/protocol';
import { SIMPLE_SHARE_ASSIGNOR_NAME } from '@cohort/assignors';
import { toTopicPartitionList } from '../consumer/topic-partitions';
import type { GroupSummaryView, GroupView } from '../ports/group-coordinator.api';
import type { ShareSlot } from '../share/share-slot';
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

/**
 * The share group of `groupId` on this shard: its membership (epochs, members with their assignments)
 * and its share partitions; undefined when the id names neither a share group nor share partition state.
 */
export function shareGroupView(shard: CoordinatorShard, groupId: string, now: number): GroupView | undefined {
  const group = shard.shareGroup(groupId);
  const slots = shard.sharePartitions.slotsOf(groupId).sort(bySlot);
  if (!group && slots.length === 0) return undefined;
  const members = group ? [...group.members.values()].sort((a, b) => (a.memberId < b.memberId ? -1 : 1)) : [];
  return {
    groupId,
    type: 'share',
    state: group?.state ?? 'Empty',
    protocolType: 'share',
    protocol: SIMPLE_SHARE_ASSIGNOR_NAME,
    generationId: group?.groupEpoch ?? 0,
    leader: null,
    coordinatorPartition: shard.partition,
    groupEpoch: group?.groupEpoch ?? 0,
    assignmentEpoch: group?.assignmentEpoch ?? 0,
    assignor: SIMPLE_SHARE_ASSIGNOR_NAME,
    members: members.map((m) => {
      const topics = [...m.subscribedTopicNames].sort();
      return {
        memberId: m.memberId,
        groupInstanceId: null,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscription: { topics },
        assignment: { partitions: toTopicPartitionList(m.assignedPartitions) },
        memberEpoch: m.memberEpoch,
        rackId: m.rackId,
        subscribedTopicNames: topics,
      };
    }),
    sharePartitions: slots.map((slot) => partitionView(slot, now)),
  };
}

/** The share groups of this shard for `GET /v1/groups`: those with membership, and ids with share partitions only. */
export function shareGroupSummaries(shard: CoordinatorShard, topic: string | undefined): GroupSummaryView[] {
  const ids = new Set([...shard.shareGroups.list().map((g) => g.groupId), ...shard.sharePartitions.groupIds()]);
  const listed: GroupSummaryView[] = [];
  for (const groupId of ids) {
    if (shard.group(groupId) || shard.consumerGroup(groupId)) continue;
    const group = shard.shareGroup(groupId);
    const onTopic =
      topic === undefined ||
      (group?.isSubscribedTo(topic) ?? false) ||
      shard.sharePartitions.slotsOf(groupId).some((slot) => slot.topic === topic);
    if (!onTopic) continue;
    const state = group?.state ?? 'Empty';
    listed.push({ groupId, type: 'share', protocolType: 'share', state, members: group?.size ?? 0 });
  }
  return listed;
}
