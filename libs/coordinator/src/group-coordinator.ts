import * as P from '@cohort/protocol';
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
import type { CoordinatorLogger, CoordinatorMetrics } from './ports/coordinator-metrics.port';
import { SILENT_LOGGER } from './ports/coordinator-metrics.port';
import type { ServerAssignorLookup } from './ports/server-assignor.port';
import type { TopicRegistry } from './ports/topic-registry.port';

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

/**
 * Kafka's classic group coordinator over a PartitionStore. Skeleton: not started yet, every request is
 * answered COORDINATOR_NOT_AVAILABLE until `start()` and the shards are wired.
 */
export class GroupCoordinator implements GroupCoordinatorApi {
  private readonly random: Random;
  private readonly logger: CoordinatorLogger;

  constructor(private readonly deps: GroupCoordinatorDeps) {
    this.random = deps.random ?? new SystemRandom();
    this.logger = deps.logger ?? SILENT_LOGGER;
  }

  start(): void {}

  close(): void {}

  async joinGroup(request: P.JoinGroupRequest, _context: RequestContext): Promise<P.JoinGroupResponse> {
    return { ...notAvailable(), generationId: -1, protocolType: null, protocolName: null, leader: '', skipAssignment: false, memberId: request.memberId, members: [] };
  }

  async syncGroup(_request: P.SyncGroupRequest, _context: RequestContext): Promise<P.SyncGroupResponse> {
    return { ...notAvailable(), protocolType: null, protocolName: null, assignment: null };
  }

  async heartbeat(_request: P.HeartbeatRequest, _context: RequestContext): Promise<P.HeartbeatResponse> {
    return notAvailable();
  }

  async leaveGroup(_request: P.LeaveGroupRequest, _context: RequestContext): Promise<P.LeaveGroupResponse> {
    return { ...notAvailable(), members: [] };
  }

  async offsetCommit(_request: P.OffsetCommitRequest, _context: RequestContext): Promise<P.OffsetCommitResponse> {
    return { ...notAvailable(), topics: [] };
  }

  async offsetFetch(_request: P.OffsetFetchRequest): Promise<P.OffsetFetchResponse> {
    return { ...notAvailable(), topics: [] };
  }

  async offsetDelete(_request: P.OffsetDeleteRequest): Promise<P.OffsetDeleteResponse> {
    return { ...notAvailable(), topics: [] };
  }

  async describeGroups(_request: P.DescribeGroupsRequest): Promise<P.DescribeGroupsResponse> {
    return { ...notAvailable(), groups: [] };
  }

  async listGroups(_request: P.ListGroupsRequest): Promise<P.ListGroupsResponse> {
    return { ...notAvailable(), groups: [] };
  }

  async deleteGroups(_request: P.DeleteGroupsRequest): Promise<P.DeleteGroupsResponse> {
    return { ...notAvailable(), results: [] };
  }

  connectionClosed(_connectionId: string): void {}

  partitionFor(groupId: string): number {
    return partitionFor(groupId, this.deps.config.numPartitions);
  }

  isServing(_partition: number): boolean {
    return false;
  }

  async describeGroup(_groupId: string): Promise<GroupView> {
    throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  }

  async listGroupSummaries(_states?: P.GroupStateName[]): Promise<GroupSummaryView[]> {
    throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  }

  async committedOffsets(_groupId: string): Promise<CommittedOffsetView[]> {
    throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  }

  async resetOffsets(_groupId: string, _topics: P.OffsetCommitTopic[]): Promise<P.OffsetCommitResponse> {
    throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  }

  async rebalanceHistory(_groupId: string): Promise<RebalanceView[]> {
    throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  }
}

function notAvailable(): P.ErrorFields {
  return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, errorName: 'COORDINATOR_NOT_AVAILABLE', errorMessage: 'the coordinator is not started' };
}
