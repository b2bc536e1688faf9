import type * as P from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import type { CommittedOffsetView, GroupSummaryView, GroupView, RebalanceView } from './api/group-coordinator.api';
import type { ClassicGroup } from './group/classic-group';
import type { CoordinatorShard } from './shard/coordinator-shard';
import type { ShardRegistry } from './shard/shard-registry';

/**
 * What REST shows operators (SPEC §4). Reads only committed state; errors are thrown as KafkaError
 * (GROUP_ID_NOT_FOUND, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, NON_EMPTY_GROUP) for the app to
 * map to HTTP statuses.
 */
export class OperatorViews {
  constructor(
    private readonly shards: ShardRegistry,
    private readonly route: (groupId: string) => CoordinatorShard,
    private readonly adminCommit: (request: P.OffsetCommitRequest) => Promise<P.OffsetCommitResponse>,
  ) {}

  async describeGroup(groupId: string): Promise<GroupView> {
    const shard = this.route(groupId);
    const group = this.requireGroup(shard, groupId);
    return {
      groupId,
      state: group.state,
      protocolType: group.protocolType,
      protocol: group.protocolName,
      generationId: group.generationId,
      leader: group.leaderId,
      coordinatorPartition: shard.partition,
      members: group.allMembers().map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        subscription: (group.protocolName !== null ? m.metadata(group.protocolName) : m.supportedProtocols[0]?.metadata) ?? null,
        assignment: m.assignment,
      })),
    };
  }

  async listGroupSummaries(states?: P.GroupStateName[]): Promise<GroupSummaryView[]> {
    const wanted = states && states.length > 0 ? new Set<string>(states) : undefined;
    return this.shards
      .all()
      .filter((s) => s.isActive)
      .flatMap((s) => [...s.groups.values()])
      .filter((g) => !wanted || wanted.has(g.state))
      .map((g) => ({ groupId: g.groupId, protocolType: g.protocolType, state: g.state, members: g.size }))
      .sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  async committedOffsets(groupId: string): Promise<CommittedOffsetView[]> {
    const group = this.requireGroup(this.route(groupId), groupId);
    return group.offsets.all().map(({ topic, partition, value }) => ({
      topic,
      partition,
      committedOffset: value.offset,
      leaderEpoch: value.leaderEpoch,
      metadata: value.metadata,
      commitTimestamp: value.commitTimestamp,
    }));
  }

  /** Sets offsets of an Empty (or absent) group; throws NON_EMPTY_GROUP otherwise and any whole-request error. */
  async resetOffsets(groupId: string, topics: P.OffsetCommitTopic[]): Promise<P.OffsetCommitResponse> {
    const response = await this.adminCommit({ groupId, generationId: -1, memberId: '', topics });
    if (response.errorCode !== 0) throw new KafkaError(response.errorCode as P.ErrorCodeValue, response.errorMessage);
    return response;
  }

  async rebalanceHistory(groupId: string): Promise<RebalanceView[]> {
    return this.requireGroup(this.route(groupId), groupId).history.list();
  }

  private requireGroup(shard: CoordinatorShard, groupId: string): ClassicGroup {
    const group = shard.group(groupId);
    if (!group) throw KafkaError.of('GROUP_ID_NOT_FOUND', `group ${groupId} does not exist`);
    return group;
  }
}
