import type * as P from '@cohort/protocol';
import { errorName, KafkaError } from '@cohort/protocol';
import type { Clock } from '@cohort/replication';
import type {
  CommittedOffsetView,
  ConsumerGroupStat,
  GroupSummaryView,
  GroupView,
  RebalanceView,
} from '../ports/group-coordinator.api';
import type { CoordinatorDispatch } from '../dispatch/coordinator-dispatch';
import { ADMIN_OFFSET_COMMIT } from '../dispatch/group-apis';
import { SHARE_OFFSETS_RESET } from '../dispatch/share-partition-apis';
import type { ShareStartOffset } from '../share/share-offset-reset';
import type { ClassicGroup } from '../group/classic-group';
import { GroupLagEvaluator, type GroupLagSummary } from '../lag/group-lag-evaluator';
import { planOffsetReset } from './offset-reset-plan';
import {
  consumerGroupSummary,
  consumerGroupView,
  consumerRebalanceViews,
  membersPendingRevocation,
} from './consumer-group-views';
import { groupLagOf } from '../lag/group-lag-evaluator';
import { shareGroupSummaries, shareGroupView } from './share-group-views';
import type { TopicRegistry } from '../ports/topic-registry.port';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import type { ShardRegistry } from '../shard/shard-registry';

/**
 * What REST shows operators (docs/rest.md). Reads only committed state; errors are thrown as KafkaError
 * (GROUP_ID_NOT_FOUND, NOT_COORDINATOR, COORDINATOR_LOAD_IN_PROGRESS, NON_EMPTY_GROUP) for the app to
 * map to HTTP statuses.
 */
export class OperatorViews {
  private readonly lag: GroupLagEvaluator;

  constructor(
    private readonly shards: ShardRegistry,
    private readonly dispatch: CoordinatorDispatch,
    private readonly topics: TopicRegistry,
    private readonly clock: Clock,
  ) {
    this.lag = new GroupLagEvaluator(topics);
  }

  async describeGroup(groupId: string): Promise<GroupView> {
    const shard = this.route(groupId);
    const consumer = shard.consumerGroup(groupId);
    if (consumer) return consumerGroupView(consumer, shard.partition, shard.env.consumerAssignors[0]?.name ?? '');
    const share = shard.group(groupId) ? undefined : shareGroupView(shard, groupId, this.clock.now());
    if (share) return share;
    const group = this.requireGroup(shard, groupId);
    return {
      groupId,
      type: 'classic',
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
        subscription:
          (group.protocolName !== null ? m.metadata(group.protocolName) : m.supportedProtocols[0]?.metadata) ?? null,
        assignment: m.assignment,
      })),
    };
  }

  /** The groups this node serves; with `topic`, only those consuming it (offsets on it, or members subscribed). */
  async listGroupSummaries(states?: P.AnyGroupStateName[], topic?: string): Promise<GroupSummaryView[]> {
    this.dispatch.requireStarted();
    const wanted = states && states.length > 0 ? new Set<string>(states) : undefined;
    const listed: GroupSummaryView[] = [];
    for (const shard of this.shards.all()) {
      if (!shard.isActive) continue;
      for (const g of shard.groups.values()) {
        // An Empty classic group that holds a consumer group's offsets is that group's, not one of its own.
        if (shard.consumerGroup(g.groupId) && g.is('Empty')) continue;
        if ((!wanted || wanted.has(g.state)) && (topic === undefined || consumes(g, topic)))
          listed.push({
            groupId: g.groupId,
            type: 'classic',
            protocolType: g.protocolType,
            state: g.state,
            members: g.size,
          });
      }
      for (const g of shard.consumerGroups.list()) {
        const holder = shard.group(g.groupId);
        const onTopic = topic === undefined || g.isSubscribedToTopic(topic) || (!!holder && consumes(holder, topic));
        if ((!wanted || wanted.has(g.state)) && onTopic) listed.push(consumerGroupSummary(g));
      }
      for (const g of shareGroupSummaries(shard, topic)) if (!wanted || wanted.has(g.state)) listed.push(g);
    }
    return listed.sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0));
  }

  async committedOffsets(groupId: string): Promise<CommittedOffsetView[]> {
    const group = this.offsetsHolder(groupId);
    if (!group) return [];
    return group.offsets.all().map(({ topic, partition, value }) => ({
      topic,
      partition,
      committedOffset: value.offset,
      leaderEpoch: value.leaderEpoch,
      metadata: value.metadata,
      commitTimestamp: value.commitTimestamp,
    }));
  }

  /**
   * Sets offsets of an Empty (or absent) group; throws NON_EMPTY_GROUP otherwise and any whole-request
   * error. A share group's are its start offsets (Kafka's AlterShareGroupOffsets, share-offset-reset.ts).
   */
  async resetOffsets(groupId: string, topics: P.OffsetCommitTopic[]): Promise<P.OffsetCommitResponse> {
    const shard = this.route(groupId);
    if (!shard.group(groupId) && isShareGroup(shard, groupId)) {
      const offsets = topics.flatMap(({ name, partitions }) =>
        partitions.map((p) => ({ topic: name, partition: p.partitionIndex, startOffset: p.committedOffset })),
      );
      for (const { topic, partition } of offsets) {
        const count = this.topics.partitionCount(topic);
        if (count === undefined || !(partition >= 0 && partition < count))
          throw KafkaError.of(
            'UNKNOWN_TOPIC_OR_PARTITION',
            count === undefined ? `topic '${topic}' does not exist` : `topic '${topic}' has no partition ${partition}`,
          );
      }
      await this.executeShareReset(groupId, offsets);
      return {
        errorCode: 0,
        topics: topics.map(({ name, partitions }) => ({
          name,
          partitions: partitions.map(({ partitionIndex }) => ({ partitionIndex, errorCode: 0 })),
        })),
      };
    }
    const response = await this.dispatch.execute(
      ADMIN_OFFSET_COMMIT,
      { groupId, generationId: -1, memberId: '', topics },
      { clientId: 'admin', clientHost: '' },
    );
    if (response.errorCode !== 0) throw new KafkaError(response.errorCode as P.ErrorCodeValue, response.errorMessage);
    return response;
  }

  /** `GET /v1/groups/:groupId/lag`: Burrow's evaluation per partition and for the group (docs/lag.md). */
  async groupLag(groupId: string): Promise<P.GroupLag> {
    const group = this.offsetsHolder(groupId);
    return group ? this.lag.describe(group, this.clock.now()) : groupLagOf(groupId, []);
  }

  /**
   * For the metrics scrape: the `limit` groups this node serves with the largest total lag (ties by
   * id), each evaluated without histories. Every group is ranked by a cheap sum first, so only the
   * groups exported pay for the evaluation.
   */
  lagSummaries(withPartitions: boolean, limit = Number.POSITIVE_INFINITY): GroupLagSummary[] {
    const now = this.clock.now();
    const ranked: { group: ClassicGroup; totalLag: number }[] = [];
    const ends = new Map<string, Readonly<Record<number, number>> | undefined>();
    for (const shard of this.shards.all()) {
      if (!shard.isActive) continue;
      for (const group of shard.groups.values())
        if (group.offsets.hasCommitted) ranked.push({ group, totalLag: this.lag.totalLag(group, ends) });
    }
    if (ranked.length > limit) {
      ranked.sort(
        (a, b) =>
          b.totalLag - a.totalLag ||
          (a.group.groupId < b.group.groupId ? -1 : a.group.groupId > b.group.groupId ? 1 : 0),
      );
      ranked.length = Math.max(0, limit);
    }
    return ranked.map(({ group }) => this.lag.summarize(group, now, withPartitions));
  }

  /**
   * `POST /v1/groups/:groupId/offsets/reset`: the plan (docs/operations.md), and unless it is a dry
   * run, the plan committed as it is, once the group is Empty (NON_EMPTY_GROUP otherwise). Resolves
   * after the offsets are committed; a group that does not exist yet gets its first offsets, as Kafka allows.
   */
  async resetOffsetsTo(groupId: string, request: P.ResetOffsetsRequest): Promise<P.ResetOffsetsResult> {
    const shard = this.route(groupId);
    const group = shard.group(groupId);
    const consumer = shard.consumerGroup(groupId);
    // A share group's position is its SPSO, not committed offsets: a commit here would make a classic group of its id.
    if (!group && isShareGroup(shard, groupId)) return this.resetShareOffsetsTo(shard, groupId, request);
    const committed = group ? await this.committedOffsets(groupId) : [];
    const offsets = planOffsetReset(request, committed, this.topics, this.clock.now());
    const dryRun = request.dryRun !== false;
    if (dryRun || offsets.length === 0) return { groupId, dryRun, offsets };
    const busy =
      consumer && consumer.state !== 'Empty'
        ? consumer
        : group && !group.is('Empty') && !group.is('Dead')
          ? group
          : undefined;
    if (busy) {
      throw KafkaError.of(
        'NON_EMPTY_GROUP',
        `group '${groupId}' is ${busy.state} with ${busy.size} member(s); offsets can be reset only while it is Empty (stop its consumers first)`,
      );
    }
    const byTopic = new Map<string, P.OffsetCommitTopic>();
    for (const { topic, partition, newOffset } of offsets) {
      let entry = byTopic.get(topic);
      if (!entry) byTopic.set(topic, (entry = { name: topic, partitions: [] }));
      entry.partitions.push({ partitionIndex: partition, committedOffset: newOffset });
    }
    const response = await this.resetOffsets(groupId, [...byTopic.values()]);
    const failed = response.topics.flatMap((t) =>
      t.partitions
        .filter((p) => p.errorCode !== 0)
        .map((p) => `${t.name}-${p.partitionIndex}: ${errorName(p.errorCode)}`),
    );
    if (failed.length > 0) {
      const first = response.topics.flatMap((t) => t.partitions).find((p) => p.errorCode !== 0)!;
      throw new KafkaError(
        first.errorCode as P.ErrorCodeValue,
        `cannot reset offsets of group '${groupId}': ${failed.join(', ')}`,
      );
    }
    return { groupId, dryRun, offsets };
  }

  /**
   * A share group's reset (kafka-share-groups.sh `--reset-offsets`): the plan over its start offsets
   * (SPSO) and, unless it is a dry run, those partitions started afresh at the new ones
   * (share-offset-reset.ts, NON_EMPTY_GROUP while it has members). Resolves once they are committed.
   */
  private async resetShareOffsetsTo(
    shard: CoordinatorShard,
    groupId: string,
    request: P.ResetOffsetsRequest,
  ): Promise<P.ResetOffsetsResult> {
    const current = shard.sharePartitions
      .slotsOf(groupId)
      .map(({ topic, partition, state }) => ({ topic, partition, committedOffset: state.startOffset }))
      .sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
    const offsets = planOffsetReset(request, current, this.topics, this.clock.now());
    const dryRun = request.dryRun !== false;
    if (dryRun || offsets.length === 0) return { groupId, dryRun, offsets };
    await this.executeShareReset(
      groupId,
      offsets.map(({ topic, partition, newOffset }) => ({ topic, partition, startOffset: newOffset })),
    );
    return { groupId, dryRun, offsets };
  }

  /** The share partitions moved to their new start offsets, once committed; the write's failure is thrown. */
  private async executeShareReset(groupId: string, offsets: ShareStartOffset[]): Promise<void> {
    const done = await this.dispatch.execute(
      SHARE_OFFSETS_RESET,
      { groupId, offsets },
      { clientId: 'admin', clientHost: '' },
    );
    if (done.errorCode !== 0)
      throw new KafkaError(
        done.errorCode as P.ErrorCodeValue,
        `cannot reset the start offsets of share group '${groupId}': ${errorName(done.errorCode)}`,
      );
  }

  async rebalanceHistory(groupId: string): Promise<RebalanceView[]> {
    const shard = this.route(groupId);
    const consumer = shard.consumerGroup(groupId);
    if (consumer) return consumerRebalanceViews(consumer);
    // A share group has no rebalance: its members are given every subscribed partition at once.
    if (!shard.group(groupId) && isShareGroup(shard, groupId)) return [];
    return this.requireGroup(shard, groupId).history.list();
  }

  consumerGroupStats(limit = Number.POSITIVE_INFINITY): ConsumerGroupStat[] {
    const stats: ConsumerGroupStat[] = [];
    for (const shard of this.shards.all()) {
      if (!shard.isActive) continue;
      for (const g of shard.consumerGroups.list()) {
        stats.push({
          groupId: g.groupId,
          state: g.state,
          groupEpoch: g.groupEpoch,
          assignmentEpoch: g.assignmentEpoch,
          members: g.size,
          membersPendingRevocation: membersPendingRevocation(g),
        });
      }
    }
    stats.sort(
      (a, b) =>
        b.membersPendingRevocation - a.membersPendingRevocation ||
        (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0),
    );
    return stats.length > limit ? stats.slice(0, Math.max(0, limit)) : stats;
  }

  /**
   * The classic group holding `groupId`'s offsets: the group itself, or for a consumer group the Empty
   * classic group its offsets live in (undefined while it has committed none); GROUP_ID_NOT_FOUND when
   * the id names no group.
   */
  private offsetsHolder(groupId: string): ClassicGroup | undefined {
    const shard = this.route(groupId);
    if (shard.consumerGroup(groupId) || isShareGroup(shard, groupId)) return shard.group(groupId);
    return this.requireGroup(shard, groupId);
  }

  /** The shard of `groupId`; throws KafkaError when this node does not serve it (the dispatch's routing). */
  private route(groupId: string): CoordinatorShard {
    return this.dispatch.shardFor(groupId);
  }

  private requireGroup(shard: CoordinatorShard, groupId: string): ClassicGroup {
    const group = shard.group(groupId);
    if (!group) throw KafkaError.of('GROUP_ID_NOT_FOUND', `group ${groupId} does not exist`);
    return group;
  }
}

/** The group has a committed offset on `topic`, or a member whose `consumer` subscription names it. */
function consumes(group: ClassicGroup, topic: string): boolean {
  let committed = false;
  group.offsets.forEachCommitted((t) => void (committed ||= t === topic));
  if (committed) return true;
  if (group.protocolType !== 'consumer') return false;
  return group.allMembers().some((m) => {
    const subscription = (
      group.protocolName !== null ? m.metadata(group.protocolName) : m.supportedProtocols[0]?.metadata
    ) as { topics?: unknown } | undefined;
    return Array.isArray(subscription?.topics) && subscription.topics.includes(topic);
  });
}

/** The id names a share group here: its membership, or share partition state. */
function isShareGroup(shard: CoordinatorShard, groupId: string): boolean {
  return shard.shareGroup(groupId) !== undefined || shard.sharePartitions.slotsOf(groupId).length > 0;
}
