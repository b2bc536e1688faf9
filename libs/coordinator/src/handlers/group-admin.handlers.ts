import type { DescribedGroup, ListedGroup } from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { offsetWriteError } from '../context/store-errors';
import { errorFields } from '../responses/error-fields';
import type { ClassicGroup } from '../group/classic-group';
import type { PartitionRef } from '../offsets/offset-writes';
import type { GroupRegistry } from '../group/group-registry';
import type { ConsumerGroupStore } from '../consumer/consumer-group-replay';
import type { ConsumerGroupManager } from '../consumer/consumer-group-manager';
import type { OffsetWrites } from '../offsets/offset-writes';
import type { CoordinatorResult } from '../runtime/coordinator-result';

/**
 * Kafka's DescribeGroups for one group: unknown → Dead; metadata and assignments only while Stable. A
 * consumer group is not a classic group (`notClassicGroup`); it is described by ConsumerGroupDescribe.
 */
export function describeGroup(
  groups: GroupRegistry,
  consumerGroups: ConsumerGroupStore,
  groupId: string,
): DescribedGroup {
  if (consumerGroups.get(groupId)) return notClassicGroup(groupId);
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

/**
 * The DescribeGroups entry of a consumer or share group, which is not a classic group: as Kafka's
 * (`classicGroup` throws GroupIdNotFoundException, answered from DescribeGroups v6 on), the state Dead,
 * no members, GROUP_ID_NOT_FOUND and Kafka's message.
 */
export function notClassicGroup(groupId: string): DescribedGroup {
  return {
    ...errorFields(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} is not a classic group.`),
    groupId,
    groupState: 'Dead',
    protocolType: '',
    protocolData: '',
    members: [],
  };
}

/**
 * Kafka's ListGroups entries of this shard, optionally filtered by state (case-insensitive, KIP-518) and
 * type (KIP-848). An Empty classic group that only holds the offsets of a consumer group of the same id
 * is that consumer group's, not a group of its own.
 */
export function listGroups(
  groups: GroupRegistry,
  consumerGroups: ConsumerGroupStore,
  statesFilter: string[] | undefined,
  typesFilter: string[] | undefined,
): ListedGroup[] {
  const states = new Set((statesFilter ?? []).map((s) => s.toLowerCase()));
  const types = new Set((typesFilter ?? []).map((t) => t.toLowerCase()));
  const listed: ListedGroup[] = [];
  const wanted = (state: string, type: string): boolean =>
    (states.size === 0 || states.has(state.toLowerCase())) && (types.size === 0 || types.has(type));
  for (const g of groups.values()) {
    if (consumerGroups.get(g.groupId) && g.is('Empty')) continue;
    if (wanted(g.state, 'classic'))
      listed.push({
        groupId: g.groupId,
        protocolType: g.protocolType ?? '',
        groupState: g.state,
        groupType: 'classic',
      });
  }
  for (const g of consumerGroups.list()) {
    // Kafka lists a consumer group with the protocol type of its members, `consumer`.
    if (wanted(g.state, 'consumer'))
      listed.push({ groupId: g.groupId, protocolType: 'consumer', groupState: g.state, groupType: 'consumer' });
  }
  return listed;
}

/**
 * Kafka's DeleteGroups for one group (KIP-229): only an Empty group; its offsets and its record get
 * tombstones and it goes Dead once they are committed. The response is the group's error code. A
 * consumer group (KIP-848) is deleted the same way, only when Empty (NON_EMPTY_GROUP otherwise): its
 * offsets first, then its own tombstones (Kafka's `deleteAllOffsets` then `createGroupTombstoneRecords`).
 */
export function deleteGroup(
  groups: GroupRegistry,
  consumer: ConsumerGroupManager,
  offsets: OffsetWrites,
  groupId: string,
): CoordinatorResult<number> {
  const consumerGroup = consumer.group(groupId);
  if (consumerGroup) {
    if (consumerGroup.state !== 'Empty')
      throw KafkaError.of('NON_EMPTY_GROUP', `group ${groupId} is ${consumerGroup.state}`);
    // The consumer group's committed offsets live in an Empty classic group of the same id.
    const holder = groups.get(groupId);
    const offsetsGone = holder && !holder.is('Dead') ? deleteClassicGroup(holder, offsets) : undefined;
    const groupGone = consumer.deleteEmpty(consumerGroup);
    return {
      records: [...(offsetsGone?.records ?? []), ...groupGone.records],
      response: ErrorCode.NONE,
      onFailure: (outcome) => offsetWriteError(outcome.storeError),
      appendFuture: (outcome) => {
        offsetsGone?.appendFuture?.(outcome);
        groupGone.appendFuture?.(outcome);
      },
    };
  }
  const group = groups.get(groupId);
  if (!group || group.is('Dead')) throw KafkaError.of('GROUP_ID_NOT_FOUND');
  return deleteClassicGroup(group, offsets);
}

function deleteClassicGroup(group: ClassicGroup, offsets: OffsetWrites): CoordinatorResult<number> {
  if (!group.is('Empty')) throw KafkaError.of('NON_EMPTY_GROUP');
  const partitions: PartitionRef[] = [
    ...group.offsets.all().map(({ topic, partition }) => ({ topic, partition })),
    ...group.offsets.stagedPartitions().filter(({ topic, partition }) => !group.offsets.has(topic, partition)),
  ];
  return offsets.delete(group, partitions, true);
}
