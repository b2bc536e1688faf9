/**
 * REST response and request bodies (docs/protocol.md lists the socket events; the REST routes are in
 * the node's OpenAPI document at /docs). Shared by the server, the SDK's admin client, the CLI and the
 * tests, so a field renamed on one side fails to compile on the other.
 */
import type { GroupType } from './consumer-group-protocol';
import type { TopicPartitions } from './consumer-protocol';
import type { AnyGroupStateName } from './group-state';

/** Every REST error: HTTP status, Kafka error code and name, and a message. */
export interface RestError {
  statusCode: number;
  errorCode: number;
  /** The Kafka error name, e.g. `GROUP_ID_NOT_FOUND`. */
  error: string;
  message: string;
}

/** `GET /v1/groups` */
export interface GroupListing {
  groupId: string;
  /** `classic` (JoinGroup/SyncGroup) or `consumer` (Kafka 4's ConsumerGroupHeartbeat). */
  type: GroupType;
  protocolType: string | null;
  /** Kafka's classic states, or for a `consumer` group Empty, Assigning, Reconciling, Stable. */
  state: AnyGroupStateName;
  members: number;
  /** Node id of the group's coordinator; null while its partition has no leader. */
  coordinator: number | null;
}

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** For `consumer` groups a Subscription; other protocol types are opaque. */
  subscription: unknown;
  /** For `consumer` groups a MemberAssignment; other protocol types are opaque. */
  assignment: unknown;
  /** Consumer groups (`type: 'consumer'`) only, from here on. */
  memberEpoch?: number;
  /** Where the member stands in reconciling towards its target (Kafka's MemberState). */
  memberState?: ConsumerMemberState;
  /** 1: the member heartbeats with the consumer protocol; 0: a classic member of a migrated group (Kafka's ConsumerGroupDescribe memberType). */
  memberType?: number;
  rackId?: string | null;
  subscribedTopicNames?: string[];
  /** '' when the member subscribes by names only. */
  subscribedTopicRegex?: string;
  /** What the coordinator wants the member to hold at the assignment epoch. */
  targetAssignment?: { partitions: TopicPartitions[] };
  /** Partitions the member still holds but must give up before it gets new ones. */
  partitionsPendingRevocation?: TopicPartitions[];
}

/** Kafka's `MemberState` names. */
export type ConsumerMemberState = 'STABLE' | 'UNREVOKED_PARTITIONS' | 'UNRELEASED_PARTITIONS' | 'UNKNOWN';

/** `GET /v1/groups/:groupId` */
export interface GroupDescription {
  groupId: string;
  type: GroupType;
  state: AnyGroupStateName;
  protocolType: string | null;
  /** Classic: the chosen assignment protocol. Consumer groups: the server assignor (as `assignor`). */
  protocol: string | null;
  /** Classic: the generation. Consumer groups: the group epoch (as `groupEpoch`). */
  generationId: number;
  leader: string | null;
  coordinator: number | null;
  coordinatorPartition: number;
  members: GroupMemberDescription[];
  /** Consumer groups (`type: 'consumer'`) only: the epoch of the group's membership and subscriptions. */
  groupEpoch?: number;
  /** Consumer groups only: the group epoch the target assignment was computed at. */
  assignmentEpoch?: number;
  /** Consumer groups only: the server assignor the members prefer, or the node's default. */
  assignor?: string;
  /** Share groups (`type: 'share'`) only: each share partition's offsets. */
  sharePartitions?: SharePartitionView[];
}

/** A share partition as REST shows it (KIP-932, docs/rest.md). */
export interface SharePartitionView {
  topic: string;
  partition: number;
  /** The share-partition start offset (SPSO): every offset below it is done. */
  startOffset: number;
  /** The end offset producers reported (exclusive). */
  endOffset: number;
  /** Moves when SPSO moves back (a redelivery below it, an offset reset). */
  stateEpoch: number;
  /** Offsets from SPSO up to the reported end, by state. */
  offsets: { available: number; acquired: number; acknowledged: number; archived: number };
  /** How long ago the oldest lease still held was given; null when none is held. */
  oldestLeaseAgeMs: number | null;
}

/** One archived range of a share partition: rejected, or delivered `GROUP_SHARE_DELIVERY_COUNT_LIMIT` times. */
export interface DeadLetterRange {
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
  reason: 'rejected' | 'delivery-limit';
  deliveryCount: number;
}

/** `GET /v1/groups/:groupId/dead-letters` */
export interface DeadLetters {
  groupId: string;
  deadLetters: DeadLetterRange[];
}

/** `POST /v1/groups/:groupId/dead-letters/redeliver` body. */
export interface RedeliverDeadLettersRequest {
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
}

/** What a redelivery did: how many dead offsets are available again, and the partition's SPSO after it. */
export interface RedeliverDeadLettersResult {
  groupId: string;
  topic: string;
  partition: number;
  redelivered: number;
  startOffset: number;
  stateEpoch: number;
}

/**
 * `GET /v1/groups/:groupId/rebalances`, newest first. For a consumer group, one entry per group epoch
 * bump: `generationId` is the group epoch, `reason` one of member-joined, member-left, member-fenced,
 * subscription-changed, topic-metadata-changed, and `completedAt` when every member held its target.
 */
export interface RebalanceRecord {
  generationId: number;
  reason: string;
  /** Epoch milliseconds. */
  startedAt: number;
  completedAt: number | null;
  durationMs: number | null;
  members: number;
  protocol: string | null;
  /** Consumer groups only: the group epoch of the bump. */
  groupEpoch?: number;
  /** Consumer groups only: the member whose change bumped the epoch; null for a topic change. */
  memberId?: string | null;
  /** Consumer groups only: converged, still converging, or superseded by a later bump before it converged. */
  outcome?: 'converged' | 'converging' | 'superseded';
}

export interface CommittedOffsetWithLag {
  topic: string;
  partition: number;
  committedOffset: number;
  leaderEpoch: number;
  metadata: string | null;
  commitTimestamp: number;
  /** Last end offset a producer reported (PUT /v1/topics/:name/end-offsets); null when none. */
  logEndOffset: number | null;
  lag: number | null;
  /** How long ago the committed offset was the log end, from the end-offset time index (docs/lag.md); null with `lag`. */
  timeLagMs: number | null;
}

/** `GET /v1/groups/:groupId/offsets` */
export interface GroupOffsets {
  groupId: string;
  offsets: CommittedOffsetWithLag[];
  /** Summed over the partitions whose lag is known; null when none is (no end offset reported). */
  totalLag: number | null;
  /** The largest `timeLagMs`; null when no partition's is known. */
  maxTimeLagMs: number | null;
}

/** `POST /v1/groups/:groupId/offsets` body (only while the group is Empty). */
export interface SetOffsetsTopic {
  name: string;
  partitions: { partitionIndex: number; committedOffset: number }[];
}

/** Per-partition results of an offset write or delete. */
export interface OffsetsWriteResult {
  topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[];
}

/** `GET /v1/topics/:name`; `endOffsets` maps partition → reported log end offset (`{}` when none). */
export interface TopicInfo {
  name: string;
  partitions: number;
  endOffsets: Record<number, number>;
  /** partition → reported log start offset (what an `earliest` reset goes to). */
  startOffsets?: Record<number, number>;
  /** partition → when the node stored the latest report (ms since the epoch). */
  reportedAt?: Record<number, number>;
}

/** `PUT /v1/topics/:name/end-offsets` body entries. */
export interface EndOffsetReport {
  partition: number;
  endOffset: number;
  startOffset?: number;
  /**
   * When the partition's log end was `endOffset` (ms since the epoch), e.g. the append time of its last
   * record; the report's arrival time when absent. Dates the entry of the partition's time index (docs/lag.md).
   */
  timestamp?: number;
}

export interface ClusterNode {
  nodeId: number;
  url: string;
  alive: boolean;
}

/** `GET /v1/cluster` */
export interface ClusterInfo {
  clusterId: string;
  controllerId: number | null;
  nodes: ClusterNode[];
}

export interface ReplicaState {
  nodeId: number;
  logEndOffset: number;
  lastCaughtUpMs: number;
}

/** `GET /v1/cluster/partitions`: one entry per `__consumer_offsets` partition. */
export interface PartitionInfo {
  partition: number;
  leader: number | null;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  highWatermark: number;
  logEndOffset: number;
  replicaStates: ReplicaState[];
}

/** `GET /v1/assignors` */
export interface AssignorInfo {
  name: string;
  /** Classic protocols; empty for an assignor that serves consumer groups only (`uniform`). */
  supportedProtocols: ('eager' | 'cooperative')[];
  builtIn: boolean;
  /** The group types it serves: `classic` (leader-side assignment), `consumer` (server assignors). */
  groupTypes: ('classic' | 'consumer')[];
}

/** `POST /v1/assignors/:name/assign` body: a group in flat form. */
export interface AssignDryRunRequest {
  partitionsPerTopic: Record<string, number>;
  members: {
    memberId: string;
    groupInstanceId?: string | null;
    topics: string[];
    ownedPartitions?: TopicPartitions[];
    generationId?: number;
    userData?: unknown;
    rackId?: string | null;
  }[];
  /** `consumer` runs the consumer group (server) assignor of that name, `ownedPartitions` being each member's current target; default `classic`. */
  groupType?: 'classic' | 'consumer';
}

/** `GET /v1/coordinator?groupId=` answers as FindCoordinator does. */
export interface CoordinatorLocation {
  nodeId: number;
  host: string;
  port: number;
  url: string;
  partition: number;
}
