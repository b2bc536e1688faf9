import type { GroupCoordinatorApi, TopicRegistry } from '@cohort/coordinator';
import { InMemoryTopicRegistry, StaticAssignorLookup } from '@cohort/coordinator';
import { ErrorCode, KafkaError, partitionFor } from '@cohort/protocol';
import type { AssignorCatalog } from '../../src/node/assignor-catalog';
import type { ClusterStatus } from '../../src/node/cluster-status';
import type { CohortNode } from '../../src/node/cohort-node';

/**
 * A CohortNode whose coordinator records every call and answers NONE: for testing the transports'
 * translation and validation without a log. Which calls reached the coordinator is the observable.
 */
export class RecordingNode implements CohortNode {
  readonly mode = 'embedded' as const;
  readonly calls: { method: string; args: unknown[] }[] = [];
  readonly topics: TopicRegistry = new InMemoryTopicRegistry();
  readonly coordinator: GroupCoordinatorApi;
  readonly cluster: ClusterStatus;
  readonly assignors: AssignorCatalog;
  ready = true;
  closed = false;

  constructor(numPartitions = 50) {
    // Typed loosely on purpose: each canned answer is a valid response of its method.
    const record =
      (method: string, answer: unknown) =>
      async (...args: unknown[]): Promise<any> => {
        this.calls.push({ method, args });
        return answer;
      };
    this.coordinator = {
      joinGroup: record('joinGroup', {
        errorCode: 0,
        generationId: 1,
        protocolType: 'consumer',
        protocolName: 'range',
        leader: 'm',
        skipAssignment: false,
        memberId: 'm',
        members: [],
      }),
      syncGroup: record('syncGroup', {
        errorCode: 0,
        protocolType: 'consumer',
        protocolName: 'range',
        assignment: { partitions: [] },
      }),
      heartbeat: record('heartbeat', { errorCode: 0 }),
      leaveGroup: record('leaveGroup', { errorCode: 0, members: [] }),
      offsetCommit: record('offsetCommit', { errorCode: 0, topics: [] }),
      offsetFetch: record('offsetFetch', { errorCode: 0, topics: [] }),
      offsetDelete: record('offsetDelete', { errorCode: 0, topics: [] }),
      describeGroups: record('describeGroups', { errorCode: 0, groups: [] }),
      listGroups: record('listGroups', { errorCode: 0, groups: [] }),
      deleteGroups: record('deleteGroups', { errorCode: 0, results: [] }),
      consumerGroupHeartbeat: record('consumerGroupHeartbeat', {
        errorCode: 0,
        memberId: 'm',
        memberEpoch: 1,
        heartbeatIntervalMs: 5000,
        assignment: null,
      }),
      consumerGroupDescribe: record('consumerGroupDescribe', { errorCode: 0, groups: [] }),
      shareAcquire: record('shareAcquire', { errorCode: 0, acquisitionLockTimeoutMs: 30000, partitions: [] }),
      shareAcknowledge: record('shareAcknowledge', { errorCode: 0, partitions: [] }),
      shareGroupHeartbeat: record('shareGroupHeartbeat', {
        errorCode: 0,
        memberId: 'm',
        memberEpoch: 1,
        heartbeatIntervalMs: 5000,
        assignment: null,
      }),
      shareGroupDescribe: record('shareGroupDescribe', { errorCode: 0, groups: [] }),
      connectionClosed: (connectionId: string) =>
        void this.calls.push({ method: 'connectionClosed', args: [connectionId] }),
      partitionFor: (groupId: string) => partitionFor(groupId, numPartitions),
      isServing: () => this.ready,
      loadingPartitions: () => (this.ready ? [] : [0]),
      servingPartitions: () => (this.ready ? Array.from({ length: numPartitions }, (_, p) => p) : []),
      describeGroup: async (groupId: string) => {
        throw KafkaError.of('GROUP_ID_NOT_FOUND', `group '${groupId}' does not exist`);
      },
      listGroupSummaries: record('listGroupSummaries', []),
      committedOffsets: record('committedOffsets', []),
      resetOffsets: record('resetOffsets', { errorCode: ErrorCode.NONE, topics: [] }),
      rebalanceHistory: record('rebalanceHistory', []),
      groupLag: record('groupLag', {
        groupId: '',
        status: 'UNKNOWN',
        totalLag: null,
        maxLag: null,
        maxTimeLagMs: null,
        partitions: [],
      }),
      lagSummaries: () => [],
      resetOffsetsTo: record('resetOffsetsTo', { groupId: '', dryRun: true, offsets: [] }),
      shareDeadLetters: record('shareDeadLetters', []),
      redeliverDeadLetters: record('redeliverDeadLetters', { errorCode: 0, redelivered: 0 }),
    };
    const self = { nodeId: 0, url: 'http://127.0.0.1:1', alive: true };
    this.cluster = {
      clusterId: 'test',
      nodeId: 0,
      controllerId: () => 0,
      nodes: () => [self],
      partitions: () => [],
      leaderOf: () => self,
    };
    const lookup = new StaticAssignorLookup();
    this.assignors = {
      get: (name) => lookup.get(name),
      names: () => lookup.names(),
      describe: () => [],
      consumerGroupAssignor: () => undefined,
      dryRun: (name) => {
        throw KafkaError.of('UNSUPPORTED_ASSIGNOR', `no assignor named '${name}'`);
      },
    };
  }

  isReady(): boolean {
    return this.ready;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  /** Calls other than connection bookkeeping, i.e. requests that reached the coordinator. */
  requests(): { method: string; args: unknown[] }[] {
    return this.calls.filter((call) => call.method !== 'connectionClosed');
  }
}
