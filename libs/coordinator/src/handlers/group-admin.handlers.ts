import type { DescribedGroup, ListedGroup } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { PartitionRef } from '../offsets/offset-writes';
import type { CoordinatorShard } from '../shard/coordinator-shard';

/** Kafka's DescribeGroups for one group: unknown → Dead; metadata and assignments only while Stable. */
export function describeGroup(shard: CoordinatorShard, groupId: string): DescribedGroup {
  const group = shard.group(groupId);
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
export function listGroups(shard: CoordinatorShard, statesFilter: string[] | undefined): ListedGroup[] {
  const states = new Set((statesFilter ?? []).map((s) => s.toLowerCase()));
  return [...shard.groups.values()]
    .filter((g) => states.size === 0 || states.has(g.state.toLowerCase()))
    .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '', groupState: g.state }));
}

/**
 * Kafka's DeleteGroups for one group (KIP-229): only an Empty group; its offsets and its record get
 * tombstones and it goes Dead once they are committed. `done` gets the group's error code.
 */
export function deleteGroup(shard: CoordinatorShard, groupId: string, done: (errorCode: number) => void): void {
  const group = shard.group(groupId);
  if (!group || group.is('Dead')) return done(ErrorCode.GROUP_ID_NOT_FOUND);
  if (!group.is('Empty')) return done(ErrorCode.NON_EMPTY_GROUP);
  const partitions: PartitionRef[] = [
    ...group.offsets.all().map(({ topic, partition }) => ({ topic, partition })),
    ...group.offsets.stagedPartitions().filter(({ topic, partition }) => group.offsets.get(topic, partition) === undefined),
  ];
  shard.offsets.delete(group, partitions, true, done);
}
