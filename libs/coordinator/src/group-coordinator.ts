import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError, partitionFor } from '@cohort/protocol';
import type { Clock, PartitionStore, Random } from '@cohort/replication';
import { SystemRandom } from '@cohort/replication';
import type {
  CommittedOffsetView,
  GroupCoordinatorApi,
  GroupSummaryView,
  GroupView,
  PushSink,
  RebalanceView,
  RequestContext,
} from './api/group-coordinator.api';
import type { CoordinatorConfig } from './config/coordinator-config';
import { deleteGroup, describeGroup, listGroups } from './handlers/group-admin.handlers';
import { handleHeartbeat } from './handlers/heartbeat.handler';
import { handleJoinGroup } from './handlers/join-group.handler';
import { handleLeaveGroup } from './handlers/leave-group.handler';
import { handleOffsetCommit } from './handlers/offset-commit.handler';
import { handleOffsetDelete } from './handlers/offset-delete.handler';
import { handleOffsetFetch } from './handlers/offset-fetch.handler';
import { handleSyncGroup } from './handlers/sync-group.handler';
import { parkRequest } from './handlers/park';
import type { GroupLagSummary } from './lag/group-lag-evaluator';
import type { CoordinatorResult } from './runtime/coordinator-result';
import { MemberQuotas } from './group/member-quotas';
import { OperatorViews } from './operator-views';
import type { CoordinatorLogger, CoordinatorMetrics } from './ports/coordinator-metrics.port';
import { SILENT_LOGGER } from './ports/coordinator-metrics.port';
import type { ServerAssignorLookup } from './ports/server-assignor.port';
import type { TopicRegistry } from './ports/topic-registry.port';
import { errorFields } from './responses/error-fields';
import { joinError, syncError } from './responses/group-responses';
import type { CoordinatorShard } from './shard/coordinator-shard';
import type { ShardEnv } from './shard/shard-env';
import { ShardRegistry } from './shard/shard-registry';
import * as V from './validation/request-validation';

/** Everything the coordinator needs from the outside world, injected so tests can run it under virtual time. */
export interface GroupCoordinatorDeps {
  store: PartitionStore;
  clock: Clock;
  config: CoordinatorConfig;
  topics: TopicRegistry;
  assignors: ServerAssignorLookup;
  push: PushSink;
  metrics?: CoordinatorMetrics;
  /** Member ids are `clientId-uuid`; the uuid comes from here (seeded in simulations). */
  random?: Random;
  logger?: CoordinatorLogger;
}

/** APIs whose empty group id is accepted (Kafka's `isValidGroupId`): only a missing id is invalid. */
type GroupApi = 'join' | 'sync' | 'heartbeat' | 'leave' | 'commit' | 'fetch' | 'delete-offsets' | 'describe' | 'delete';
const EMPTY_ID_ALLOWED: ReadonlySet<GroupApi> = new Set(['commit', 'fetch', 'describe', 'delete']);

type Routed = { shard: CoordinatorShard } | { error: number; message: string };

/**
 * Kafka's classic group coordinator over a PartitionStore (docs/protocol.md; docs/guarantees.md). Call `start()` to follow the
 * store's leadership events; each led `__consumer_offsets` partition gets a shard that loads it and then
 * serves its groups. Every method answers with a full response whose errorCode says what went wrong;
 * replies that write records resolve only after the records are committed.
 */
export class GroupCoordinator implements GroupCoordinatorApi {
  private readonly env: ShardEnv;
  private readonly shards: ShardRegistry;
  private readonly views: OperatorViews;
  private unsubscribers: (() => void)[] = [];
  private started = false;

  constructor(private readonly deps: GroupCoordinatorDeps) {
    this.env = {
      config: deps.config,
      clock: deps.clock,
      random: deps.random ?? new SystemRandom(),
      topics: deps.topics,
      assignors: deps.assignors,
      push: deps.push,
      metrics: deps.metrics ?? {},
      logger: deps.logger ?? SILENT_LOGGER,
      quotas: new MemberQuotas(deps.config),
    };
    this.shards = new ShardRegistry(deps.store, this.env);
    this.views = new OperatorViews(
      this.shards,
      (groupId) => this.routeOrThrow(groupId, 'describe'),
      (request) => this.offsetCommitAsAdmin(request),
      deps.topics,
      deps.clock,
    );
  }

  /** Starts following leadership (the store calls back at once for partitions already led) and topic growth. */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.unsubscribers = [
      this.deps.store.subscribe(this.shards),
      this.deps.topics.onPartitionsChanged((topic) => {
        for (const shard of this.shards.all()) shard.onTopicChanged(topic);
      }),
    ];
  }

  /** Stops serving: every shard is closed (pending requests get NOT_COORDINATOR) and timers are cancelled. */
  close(): void {
    this.started = false;
    for (const unsubscribe of this.unsubscribers) unsubscribe();
    this.unsubscribers = [];
    this.shards.closeAll();
  }

  async joinGroup(request: P.JoinGroupRequest, context: RequestContext): Promise<P.JoinGroupResponse> {
    const invalid = V.validateJoinGroup(request);
    const memberId = typeof request?.memberId === 'string' ? request.memberId : '';
    if (invalid) return joinError(memberId, ErrorCode.INVALID_REQUEST, invalid);
    const routed = this.route(request.groupId, 'join');
    if ('error' in routed) return joinError(memberId, routed.error, routed.message);
    const { shard } = routed;
    return this.park(
      (resolve) => void shard.run(handleJoinGroup(shard.classic, request, context, resolve)),
      (message) => joinError(memberId, ErrorCode.UNKNOWN_SERVER_ERROR, message),
    );
  }

  async syncGroup(request: P.SyncGroupRequest, context: RequestContext): Promise<P.SyncGroupResponse> {
    const invalid = V.validateSyncGroup(request);
    if (invalid) return syncError(ErrorCode.INVALID_REQUEST, invalid);
    const routed = this.route(request.groupId, 'sync');
    if ('error' in routed) {
      // The rebalance in flight was lost with the old coordinator: rejoin without rediscovery (Kafka).
      if (routed.error === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)
        return syncError(ErrorCode.REBALANCE_IN_PROGRESS, routed.message);
      return syncError(routed.error, routed.message);
    }
    const { shard } = routed;
    // The reply is parked on the member; the result carries the leader's write of the assignment.
    return this.park(
      (resolve) => void shard.run(handleSyncGroup(shard.classic, request, context, resolve)),
      (message) => syncError(ErrorCode.UNKNOWN_SERVER_ERROR, message),
    );
  }

  async heartbeat(request: P.HeartbeatRequest, context: RequestContext): Promise<P.HeartbeatResponse> {
    const invalid = V.validateHeartbeat(request);
    if (invalid) return errorFields(ErrorCode.INVALID_REQUEST, invalid);
    const routed = this.route(request.groupId, 'heartbeat');
    if ('error' in routed) {
      // Kafka answers blindly while loading: the member's session restarts once the group is loaded.
      return routed.error === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
        ? errorFields(ErrorCode.NONE)
        : errorFields(routed.error, routed.message);
    }
    const { shard } = routed;
    return this.write(
      shard,
      () => handleHeartbeat(shard.classic, request, context),
      (message) => errorFields(ErrorCode.UNKNOWN_SERVER_ERROR, message),
    );
  }

  async leaveGroup(request: P.LeaveGroupRequest, _context: RequestContext): Promise<P.LeaveGroupResponse> {
    const invalid = V.validateLeaveGroup(request);
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), members: [] };
    const routed = this.route(request.groupId, 'leave');
    if ('error' in routed) return { ...errorFields(routed.error, routed.message), members: [] };
    const { shard } = routed;
    return this.write(
      shard,
      () => handleLeaveGroup(shard.classic, request),
      (message) => ({ ...errorFields(ErrorCode.UNKNOWN_SERVER_ERROR, message), members: [] }),
    );
  }

  async offsetCommit(request: P.OffsetCommitRequest, context: RequestContext): Promise<P.OffsetCommitResponse> {
    const invalid = V.validateOffsetCommit(request);
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), topics: [] };
    const routed = this.route(request.groupId, 'commit');
    if ('error' in routed) return commitFailure(request, routed.error, routed.message);
    const { shard } = routed;
    return this.write(
      shard,
      () => handleOffsetCommit(shard.classic, shard.offsets, request, context),
      (message) => commitFailure(request, ErrorCode.UNKNOWN_SERVER_ERROR, message),
    );
  }

  async offsetFetch(request: P.OffsetFetchRequest): Promise<P.OffsetFetchResponse> {
    const invalid = V.validateOffsetFetch(request);
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), topics: [] };
    const routed = this.route(request.groupId, 'fetch');
    if ('error' in routed) return { ...errorFields(routed.error, routed.message), topics: [] };
    return this.guard(
      () => handleOffsetFetch(routed.shard.groups, request),
      (message) => ({ ...errorFields(ErrorCode.UNKNOWN_SERVER_ERROR, message), topics: [] }),
    );
  }

  async offsetDelete(request: P.OffsetDeleteRequest): Promise<P.OffsetDeleteResponse> {
    const invalid = V.validateOffsetDelete(request);
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), topics: [] };
    const routed = this.route(request.groupId, 'delete-offsets');
    if ('error' in routed) return { ...errorFields(routed.error, routed.message), topics: [] };
    const { shard } = routed;
    return this.write(
      shard,
      () => handleOffsetDelete(shard.groups, shard.offsets, this.env.topics, request),
      (message) => ({ ...errorFields(ErrorCode.UNKNOWN_SERVER_ERROR, message), topics: [] }),
    );
  }

  async describeGroups(request: P.DescribeGroupsRequest): Promise<P.DescribeGroupsResponse> {
    const invalid = V.validateGroupIds(request?.groups, 'groups');
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), groups: [] };
    const groups = request.groups.map((groupId): P.DescribedGroup => {
      const routed = this.route(groupId, 'describe');
      if ('error' in routed)
        return { errorCode: routed.error, groupId, groupState: '', protocolType: '', protocolData: '', members: [] };
      return describeGroup(routed.shard.groups, groupId);
    });
    return { errorCode: 0, groups };
  }

  async listGroups(request: P.ListGroupsRequest): Promise<P.ListGroupsResponse> {
    const invalid = V.validateListGroups(request);
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), groups: [] };
    if (!this.started) return { ...errorFields(ErrorCode.COORDINATOR_NOT_AVAILABLE), groups: [] };
    const shards = this.shards.all();
    const groups = shards.filter((s) => s.isActive).flatMap((s) => listGroups(s.groups, request?.statesFilter));
    // Kafka: while any partition loads, the loaded groups come with COORDINATOR_LOAD_IN_PROGRESS.
    const loading = shards.some((s) => s.status === 'LOADING');
    return { ...errorFields(loading ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE), groups };
  }

  async deleteGroups(request: P.DeleteGroupsRequest): Promise<P.DeleteGroupsResponse> {
    const invalid = V.validateGroupIds(request?.groupsNames, 'groupsNames');
    if (invalid) return { ...errorFields(ErrorCode.INVALID_REQUEST, invalid), results: [] };
    const results = await Promise.all(
      [...new Set(request.groupsNames)].map(async (groupId) => {
        const routed = this.route(groupId, 'delete');
        if ('error' in routed) return { groupId, errorCode: routed.error };
        const { shard } = routed;
        const errorCode = await this.write(
          shard,
          () => deleteGroup(shard.groups, shard.offsets, groupId),
          () => ErrorCode.UNKNOWN_SERVER_ERROR,
        );
        return { groupId, errorCode };
      }),
    );
    return { errorCode: 0, results };
  }

  connectionClosed(connectionId: string): void {
    for (const shard of this.shards.all()) {
      if (!shard.isActive) continue;
      shard.step(() => {
        for (const { group, member } of shard.connections.take(connectionId))
          shard.classic.liveness.connectionClosed(group, member, connectionId);
        for (const { group, memberId } of shard.connections.takePending(connectionId))
          shard.classic.liveness.pendingConnectionClosed(group, memberId);
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

  listGroupSummaries(states?: P.GroupStateName[], topic?: string): Promise<GroupSummaryView[]> {
    if (!this.started)
      return Promise.reject(KafkaError.of('COORDINATOR_NOT_AVAILABLE', 'the coordinator is not started'));
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

  /** Kafka's `validateGroupStatus`: group id, started, loaded, coordinated here. */
  private route(groupId: string, api: GroupApi): Routed {
    if (typeof groupId !== 'string' || (groupId === '' && !EMPTY_ID_ALLOWED.has(api))) {
      return { error: ErrorCode.INVALID_GROUP_ID, message: 'groupId must be a non-empty string' };
    }
    if (!this.started) return { error: ErrorCode.COORDINATOR_NOT_AVAILABLE, message: 'the coordinator is not started' };
    return this.shards.route(groupId);
  }

  private routeOrThrow(groupId: string, api: GroupApi): CoordinatorShard {
    const routed = this.route(groupId, api);
    if ('error' in routed) throw new KafkaError(routed.error as P.ErrorCodeValue, routed.message);
    return routed.shard;
  }

  /** REST `POST /v1/groups/:groupId/offsets`: a generation -1 commit that only an Empty group accepts. */
  private offsetCommitAsAdmin(request: P.OffsetCommitRequest): Promise<P.OffsetCommitResponse> {
    const invalid = V.validateOffsetCommit(request);
    if (invalid) return Promise.reject(KafkaError.of('INVALID_REQUEST', invalid));
    const shard = this.routeOrThrow(request.groupId, 'commit');
    return this.write(
      shard,
      () =>
        handleOffsetCommit(
          shard.classic,
          shard.offsets,
          request,
          { clientId: 'admin', clientHost: '' },
          { adminReset: true },
        ),
      (message) => commitFailure(request, ErrorCode.UNKNOWN_SERVER_ERROR, message),
    );
  }

  private park<T>(run: (resolve: (value: T) => void) => void, onBug: (message: string) => T): Promise<T> {
    return parkRequest(this.env.logger, run, onBug);
  }

  /**
   * Kafka's `scheduleWriteOperation`: the handler runs as one synchronous step and returns its result;
   * the shard's runtime appends the records with its open batch and the reply leaves once they commit.
   */
  private write<T>(
    shard: CoordinatorShard,
    handler: () => CoordinatorResult<T>,
    onBug: (message: string) => T,
  ): Promise<T> {
    return this.park((resolve) => {
      void shard.run(handler()).then((response) => resolve(response as T));
    }, onBug);
  }

  private guard<T>(run: () => T, onBug: (message: string) => T): Promise<T> {
    return parkRequest(this.env.logger, (resolve) => resolve(run()), onBug);
  }
}

/** Kafka answers a failed OffsetCommit with the error on every partition. */
function commitFailure(request: P.OffsetCommitRequest, error: number, message: string): P.OffsetCommitResponse {
  return {
    ...errorFields(error, message),
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: error })),
    })),
  };
}
