import type { DescribedGroup, ListedGroup } from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import type { PartitionRef } from '../offsets/offset-writes';
import type { GroupRegistry } from '../group/group-registry';
import type { OffsetWrites } from '../offsets/offset-writes';
import type { CoordinatorResult } from '../runtime/coordinator-result';

/** Kafka's DescribeGroups for one group: unknown → Dead; metadata and assignments only while Stable. */
export function describeGroup(groups: GroupRegistry, groupId: string): DescribedGroup {
  const group = groups.get(groupId);
  if (!group) return { errorCode: 0, groupId, groupState: 'Dead', protocolType: '', protocolData: '', members: [] };
  const stable = group.is('Stable');
  return {
    errorCode: 0,
    groupId,
    groupState: group.state,
    protocolType: group.protocolType ?? '',
    protocolData: stable ? (group.protocolName ?? '') : '',
    members: group.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      memberMetadata: stable ? (m.metadata(group.protocolName!) ?? null) : null,
      memberAssignment: stable ? m.assignment : null,
    })),
  };
}

/** Kafka's ListGroups entries of this shard, optionally filtered by state (case-insensitive, KIP-518). */
export function listGroups(groups: GroupRegistry, statesFilter: string[] | undefined): ListedGroup[] {
  const states = new Set((statesFilter ?? []).map((s) => s.toLowerCase()));
  return groups
    .list()
    .filter((g) => states.size === 0 || states.has(g.state.toLowerCase()))
    .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state }));
}

/**
 * Kafka's DeleteGroups for one group (KIP-229): only an Empty group; its offsets and its record get
 * tombstones and it goes Dead once they are committed. The response is the group's error code.
 */
export function deleteGroup(groups: GroupRegistry, offsets: OffsetWrites, groupId: string): CoordinatorResult<number> {
  const group = groups.get(groupId);
  if (!group || group.is('Dead')) throw KafkaError.of('GROUP_ID_NOT_FOUND');
  if (!group.is('Empty')) throw KafkaError.of('NON_EMPTY_GROUP');
  const partitions: PartitionRef[] = [
    ...group.offsets.all().map(({ topic, partition }) => ({ topic, partition })),
    ...group.offsets.stagedPartitions().filter(({ topic, partition }) => !group.offsets.has(topic, partition)),
  ];
  return offsets.delete(group, partitions, true);
}
