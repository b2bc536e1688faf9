import type * as P from '@cohort/protocol';
import { KafkaError, partitionFor } from '@cohort/protocol';
import type { Clock, PartitionStore, Random } from '@cohort/replication';
import { SystemRandom } from '@cohort/replication';
import type {
  CommittedOffsetView,
  GroupCoordinatorApi,
  ConsumerGroupStat,
  GroupSummaryView,
  GroupView,
  PushSink,
  RebalanceView,
  RequestContext,
} from './ports/group-coordinator.api';
import type { CoordinatorConfig } from './ports/coordinator-config';
import { CoordinatorDispatch } from './dispatch/coordinator-dispatch';
import * as API from './dispatch/group-apis';
import {
  type RedeliverCall,
  SHARE_ACKNOWLEDGE,
  SHARE_ACQUIRE,
  SHARE_DEAD_LETTERS,
  SHARE_REDELIVER,
} from './dispatch/share-partition-apis';
import type { DeadLetterView, RedeliverResult } from './share/share-partition-views';
import { consumerGroupNotFound } from './handlers/consumer-group.handlers';
import { shareGroupNotFound } from './handlers/share-group-handlers';
import { MemberQuotas } from './group/member-quotas';
import type { GroupLagSummary } from './lag/group-lag-evaluator';
import { OperatorViews } from './operations/operator-views';
import type { CoordinatorLogger, CoordinatorMetrics } from './ports/coordinator-metrics.port';
import { SILENT_LOGGER } from './ports/coordinator-metrics.port';
import type { ConsumerGroupAssignorPort } from './ports/consumer-assignor.port';
import type { ServerAssignorLookup } from './ports/server-assignor.port';
import type { TopicRegistry } from './ports/topic-registry.port';
import type { TopicAccessPort } from './ports/topic-access.port';
import type { ShardEnv } from './context/shard-env';
import { ShardRegistry } from './shard/shard-registry';
import { retargetConsumerGroupSoon } from './handlers/consumer-heartbeat-queue';

/** Everything the coordinator needs from the outside world, injected so tests can run it under virtual time. */
export interface GroupCoordinatorDeps {
  store: PartitionStore;
  clock: Clock;
  config: CoordinatorConfig;
  topics: TopicRegistry;
  assignors: ServerAssignorLookup;
  /** The consumer groups' server assignors (GROUP_CONSUMER_ASSIGNORS order; the first is the default). */
  consumerAssignors?: readonly ConsumerGroupAssignorPort[];
  push: PushSink;
  metrics?: CoordinatorMetrics;
  /** Member ids are `clientId-uuid`; the uuid comes from here (seeded in simulations). */
  random?: Random;
  logger?: CoordinatorLogger;
  /** DESCRIBE TOPIC by the app's ACLs, when they are on: regex subscriptions give each member only what it may describe. */
  topicAccess?: TopicAccessPort;
}

/** What requests that carry no connection pass (the reads and admin requests do not bind members). */
const NO_CONTEXT: RequestContext = Object.freeze({ clientId: '', clientHost: '' });

/**
 * Kafka's classic group coordinator over a PartitionStore (docs/protocol.md; docs/guarantees.md). Call `start()` to follow the
 * store's leadership events; each led `__consumer_offsets` partition gets a shard that loads it and then
 * serves its groups. Every protocol method is one row of the API table (`dispatch/group-apis.ts`) run by
 * the one dispatch (`dispatch/coordinator-dispatch.ts`), and answers with a full response whose
 * errorCode says what went wrong; replies that write records resolve only after the records are committed.
 */
export class GroupCoordinator implements GroupCoordinatorApi {
  private readonly env: ShardEnv;
  private readonly shards: ShardRegistry;
  private readonly dispatch: CoordinatorDispatch;
  private readonly views: OperatorViews;
  private unsubscribers: (() => void)[] = [];

  constructor(private readonly deps: GroupCoordinatorDeps) {
    this.env = {
      config: deps.config,
      clock: deps.clock,
      random: deps.random ?? new SystemRandom(),
      topics: deps.topics,
      assignors: deps.assignors,
      consumerAssignors: deps.consumerAssignors ?? [],
      push: deps.push,
      metrics: deps.metrics ?? {},
      logger: deps.logger ?? SILENT_LOGGER,
      quotas: new MemberQuotas(deps.config),
      topicAccess: deps.topicAccess,
    };
    this.shards = new ShardRegistry(deps.store, this.env, (shard) => {
      // A member leaving or fenced moves its group's target with the shard's next heartbeat batch.
      shard.consumerGroupMoved = (groupId) => retargetConsumerGroupSoon(shard, groupId);
    });
    this.dispatch = new CoordinatorDispatch(this.shards, this.env);
    this.views = new OperatorViews(this.shards, this.dispatch, deps.topics, deps.clock);
  }

  /** Starts following leadership (the store calls back at once for partitions already led) and topic growth. */
  start(): void {
    if (this.dispatch.started) return;
    this.dispatch.started = true;
    this.unsubscribers = [
      this.deps.store.subscribe(this.shards),
      this.deps.topics.onPartitionsChanged((topic) => {
        for (const shard of this.shards.all()) shard.onTopicChanged(topic);
      }),
      // Share groups' held acquires wake when producers report new end offsets.
      this.deps.topics.onEndOffsetsChanged?.((topic, partitions) => {
        for (const shard of this.shards.all()) shard.onEndOffsets(topic, partitions);
      }) ?? (() => undefined),
      // Regex members filtered by ACLs get their new topics when the bindings change, not at their next heartbeat.
      this.deps.topicAccess?.onChanged?.(() => {
        for (const shard of this.shards.all()) {
          try {
            shard.onTopicAccessChanged();
          } catch (error) {
            // The ACL change itself stands (its caller is the authorizer); the members move at their next heartbeat.
            this.env.logger.error(`moving regex groups after an ACL change failed: ${String(error)}`);
          }
        }
      }) ?? (() => undefined),
    ];
  }

  /** Stops serving: every shard is closed (pending requests get NOT_COORDINATOR) and timers are cancelled. */
  close(): void {
    this.dispatch.started = false;
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
    this.shards.closeAll();
  }

  joinGroup(request: P.JoinGroupRequest, context: RequestContext): Promise<P.JoinGroupResponse> {
    return this.dispatch.run(API.JOIN_GROUP, request, context);
  }

  syncGroup(request: P.SyncGroupRequest, context: RequestContext): Promise<P.SyncGroupResponse> {
    return this.dispatch.run(API.SYNC_GROUP, request, context);
  }

  heartbeat(request: P.HeartbeatRequest, context: RequestContext): Promise<P.HeartbeatResponse> {
    return this.dispatch.run(API.HEARTBEAT, request, context);
  }

  leaveGroup(request: P.LeaveGroupRequest, context: RequestContext): Promise<P.LeaveGroupResponse> {
    return this.dispatch.run(API.LEAVE_GROUP, request, context);
  }

  offsetCommit(request: P.OffsetCommitRequest, context: RequestContext): Promise<P.OffsetCommitResponse> {
    return this.dispatch.run(API.OFFSET_COMMIT, request, context);
  }

  offsetFetch(request: P.OffsetFetchRequest): Promise<P.OffsetFetchResponse> {
    return this.dispatch.run(API.OFFSET_FETCH, request, NO_CONTEXT);
  }

  offsetDelete(request: P.OffsetDeleteRequest): Promise<P.OffsetDeleteResponse> {
    return this.dispatch.run(API.OFFSET_DELETE, request, NO_CONTEXT);
  }

  describeGroups(request: P.DescribeGroupsRequest): Promise<P.DescribeGroupsResponse> {
    return this.dispatch.run(API.DESCRIBE_GROUPS, request, NO_CONTEXT);
  }

  listGroups(request: P.ListGroupsRequest): Promise<P.ListGroupsResponse> {
    return this.dispatch.run(API.LIST_GROUPS, request, NO_CONTEXT);
  }

  deleteGroups(request: P.DeleteGroupsRequest): Promise<P.DeleteGroupsResponse> {
    return this.dispatch.run(API.DELETE_GROUPS, request, NO_CONTEXT);
  }

  consumerGroupHeartbeat(
    request: P.ConsumerGroupHeartbeatRequest,
    context: RequestContext,
  ): Promise<P.ConsumerGroupHeartbeatResponse> {
    const off = this.consumerProtocolOff();
    if (off) return Promise.resolve(API.CONSUMER_GROUP_HEARTBEAT.errorResponse(request, off));
    return this.dispatch.run(API.CONSUMER_GROUP_HEARTBEAT, request, context);
  }

  consumerGroupDescribe(request: P.ConsumerGroupDescribeRequest): Promise<P.ConsumerGroupDescribeResponse> {
    const off = this.consumerProtocolOff();
    // Kafka's ConsumerGroupDescribeRequest.getErrorResponse: the error on each group asked for.
    if (off)
      return Promise.resolve({
        errorCode: 0,
        groups: request.groupIds.map((groupId) => consumerGroupNotFound(groupId, off.message, off.errorCode)),
      });
    return this.dispatch.run(API.CONSUMER_GROUP_DESCRIBE, request, NO_CONTEXT);
  }

  shareAcquire(
    request: P.ShareAcquireRequest,
    context: RequestContext,
    readable: (topic: string) => boolean = () => true,
  ): Promise<P.ShareAcquireResponse> {
    const call = { request, readable };
    if (!this.env.config.rebalanceProtocols.includes('share'))
      return Promise.resolve(SHARE_ACQUIRE.errorResponse(call, shareProtocolOff()));
    return this.dispatch.run(SHARE_ACQUIRE, call, context);
  }

  shareAcknowledge(
    request: P.ShareAcknowledgeRequest,
    context: RequestContext,
    readable: (topic: string) => boolean = () => true,
  ): Promise<P.ShareAcknowledgeResponse> {
    const call = { request, readable };
    if (!this.env.config.rebalanceProtocols.includes('share'))
      return Promise.resolve(SHARE_ACKNOWLEDGE.errorResponse(call, shareProtocolOff()));
    return this.dispatch.run(SHARE_ACKNOWLEDGE, call, context);
  }

  /** Operators: a share group's dead letters (archived by a reject or the delivery limit). */
  shareDeadLetters(groupId: string): Promise<DeadLetterView[]> {
    return this.dispatch.execute(SHARE_DEAD_LETTERS, groupId, NO_CONTEXT);
  }

  /** Operators: dead letters made available again, counted from zero; resolves once written. */
  redeliverDeadLetters(call: RedeliverCall): Promise<RedeliverResult> {
    return this.dispatch.execute(SHARE_REDELIVER, call, NO_CONTEXT);
  }

  shareGroupHeartbeat(
    request: P.ShareGroupHeartbeatRequest,
    context: RequestContext = NO_CONTEXT,
  ): Promise<P.ShareGroupHeartbeatResponse> {
    const off = this.env.config.rebalanceProtocols.includes('share') ? undefined : shareProtocolOff();
    if (off) return Promise.resolve(API.SHARE_GROUP_HEARTBEAT.errorResponse(request, off));
    return this.dispatch.run(API.SHARE_GROUP_HEARTBEAT, request, context);
  }

  shareGroupDescribe(request: P.ShareGroupDescribeRequest): Promise<P.ShareGroupDescribeResponse> {
    const off = this.env.config.rebalanceProtocols.includes('share') ? undefined : shareProtocolOff();
    // Kafka's ShareGroupDescribeRequest.getErrorResponse: the error on each group asked for.
    if (off)
      return Promise.resolve({
        errorCode: 0,
        groups: request.groupIds.map((groupId) => shareGroupNotFound(groupId, off.message, off.errorCode)),
      });
    return this.dispatch.run(API.SHARE_GROUP_DESCRIBE, request, NO_CONTEXT);
  }

  /** Kafka's KafkaApis answers the consumer protocol's APIs UNSUPPORTED_VERSION, before anything else, when it is off. */
  private consumerProtocolOff(): KafkaError | undefined {
    if (this.env.config.rebalanceProtocols.includes('consumer')) return undefined;
    return KafkaError.of(
      'UNSUPPORTED_VERSION',
      'The new consumer group protocol is not enabled on this node (GROUP_COORDINATOR_REBALANCE_PROTOCOLS).',
    );
  }

  connectionClosed(connectionId: string): void {
    for (const shard of this.shards.all()) {
      if (!shard.isActive) continue;
      shard.step(() => {
        for (const { group, member } of shard.connections.take(connectionId))
          shard.classic.liveness.connectionClosed(group, member, connectionId);
        for (const { group, memberId } of shard.connections.takePending(connectionId))
          shard.classic.liveness.pendingConnectionClosed(group, memberId);
        shard.consumerConnectionClosed(connectionId);
        shard.shareConnections.connectionClosed(
          connectionId,
          shard.env.config.memberDisconnectGraceMs,
          shard.effects,
          (groupId, memberId) => shard.shareLeases.releaseMember(groupId, memberId),
        );
      });
    }
  }

  partitionFor(groupId: string): number {
    return partitionFor(groupId, this.deps.config.numPartitions);
  }

  isServing(partition: number): boolean {
    return this.shards.get(partition)?.isActive ?? false;
  }

  loadingPartitions(): number[] {
    return this.shards
      .all()
      .filter((s) => s.status === 'LOADING')
      .map((s) => s.partition)
      .sort((a, b) => a - b);
  }

  servingPartitions(): number[] {
    return this.shards
      .all()
      .filter((s) => s.isActive)
      .map((s) => s.partition)
      .sort((a, b) => a - b);
  }

  describeGroup(groupId: string): Promise<GroupView> {
    return this.views.describeGroup(groupId);
  }

  listGroupSummaries(states?: P.AnyGroupStateName[], topic?: string): Promise<GroupSummaryView[]> {
    return this.views.listGroupSummaries(states, topic);
  }

  committedOffsets(groupId: string): Promise<CommittedOffsetView[]> {
    return this.views.committedOffsets(groupId);
  }

  resetOffsets(groupId: string, topics: P.OffsetCommitTopic[]): Promise<P.OffsetCommitResponse> {
    return this.views.resetOffsets(groupId, topics);
  }

  rebalanceHistory(groupId: string): Promise<RebalanceView[]> {
    return this.views.rebalanceHistory(groupId);
  }

  groupLag(groupId: string): Promise<P.GroupLag> {
    return this.views.groupLag(groupId);
  }

  lagSummaries(withPartitions = false, limit?: number): GroupLagSummary[] {
    return this.views.lagSummaries(withPartitions, limit);
  }

  resetOffsetsTo(groupId: string, request: P.ResetOffsetsRequest): Promise<P.ResetOffsetsResult> {
    return this.views.resetOffsetsTo(groupId, request);
  }

  consumerGroupStats(limit?: number): ConsumerGroupStat[] {
    return this.views.consumerGroupStats(limit);
  }
}

/** Kafka's KafkaApis answers the share group APIs UNSUPPORTED_VERSION when share groups are off. */
function shareProtocolOff(): KafkaError {
  return KafkaError.of(
    'UNSUPPORTED_VERSION',
    'Share groups are not enabled on this node (GROUP_COORDINATOR_REBALANCE_PROTOCOLS).',
  );
}
