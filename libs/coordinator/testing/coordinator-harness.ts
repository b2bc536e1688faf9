import type * as P from '@cohort/protocol';
import { ErrorCode, partitionFor } from '@cohort/protocol';
import { ManualClock, SeededRandom } from '@cohort/replication';
import type { RequestContext } from '@cohort/coordinator/ports/group-coordinator.api';
import type { CoordinatorConfig } from '@cohort/coordinator/ports/coordinator-config';
import { coordinatorConfig } from '@cohort/coordinator/ports/coordinator-config';
import { GroupCoordinator } from '@cohort/coordinator/group-coordinator';
import type { CoordinatorMetrics } from '@cohort/coordinator/ports/coordinator-metrics.port';
import type { ServerAssignor } from '@cohort/coordinator/ports/server-assignor.port';
import { StaticAssignorLookup } from '@cohort/coordinator/ports/server-assignor.port';
import type { ConsumerGroupAssignorPort } from '@cohort/coordinator/ports/consumer-assignor.port';
import type { TopicAccessPort } from '@cohort/coordinator/ports/topic-access.port';
import { InMemoryTopicRegistry } from '@cohort/coordinator/topics/in-memory-topic-registry';
import type { CoordinatorShard } from '@cohort/coordinator/shard/coordinator-shard';
import type { ShardRegistry } from '@cohort/coordinator/shard/shard-registry';
import { FakePartitionStore } from './fake-partition-store';
import { RecordingPushSink } from './recording-push-sink';

/** A promise whose outcome a test can look at without awaiting it ("no reply before commit"). */
export interface Tracked<T> {
  readonly promise: Promise<T>;
  readonly done: boolean;
  readonly value: T;
}

export function track<T>(promise: Promise<T>): Tracked<T> {
  const state = { done: false, value: undefined as T };
  promise.then((v) => {
    state.done = true;
    state.value = v;
  });
  return {
    promise,
    get done() {
      return state.done;
    },
    get value() {
      if (!state.done) throw new Error('not answered yet');
      return state.value;
    },
  };
}

export interface HarnessOptions {
  config?: Partial<CoordinatorConfig>;
  autoCommit?: boolean;
  assignors?: ServerAssignor[];
  /** The consumer groups' server assignors (the first is the default). */
  consumerAssignors?: ConsumerGroupAssignorPort[];
  topics?: { name: string; partitions: number }[];
  metrics?: CoordinatorMetrics;
  /** Elect every partition before starting (default true). */
  elect?: boolean;
  /** DESCRIBE TOPIC by ACLs, for regex subscriptions (absent: ACLs off). */
  topicAccess?: TopicAccessPort;
}

/**
 * Test defaults: no initial rebalance delay, so join phases complete as soon as everyone is in; and no
 * held consumer group answers. Most tests play each member's heartbeats one at a time, awaiting each
 * answer: a joiner's answer held until another member revokes would wait for a heartbeat the test sends
 * after it, so holding is off unless a test turns it on (consumer-held-answers.spec.ts).
 */
const TEST_CONFIG: Partial<CoordinatorConfig> = {
  groupInitialRebalanceDelayMs: 0,
  consumerHoldsUnreleasedAnswers: false,
};

/**
 * A coordinator over a FakePartitionStore under virtual time, with helpers for the classic protocol
 * dance. Everything a test awaits settles with `settle()` (microtasks and the loader's promises).
 */
export class CoordinatorHarness {
  readonly clock = new ManualClock();
  readonly store: FakePartitionStore;
  readonly topics: InMemoryTopicRegistry;
  readonly push = new RecordingPushSink();
  readonly config: CoordinatorConfig;
  readonly assignors: StaticAssignorLookup;
  coordinator: GroupCoordinator;
  private connectionSeq = 0;
  /** The connection each member last used, so follow-up requests come from the same socket. */
  private readonly memberContexts = new Map<string, RequestContext>();

  constructor(private readonly options: HarnessOptions = {}) {
    this.config = coordinatorConfig({ ...TEST_CONFIG, ...options.config });
    this.store = new FakePartitionStore(this.clock, { autoCommit: options.autoCommit ?? true });
    this.topics = new InMemoryTopicRegistry({
      topics: (options.topics ?? [{ name: 'orders', partitions: 4 }]).map((t) => ({ ...t, endOffsets: {} })),
      clock: this.clock,
    });
    this.assignors = new StaticAssignorLookup(options.assignors ?? []);
    this.coordinator = this.newCoordinator();
    if (options.elect ?? true) this.store.electAll(this.config.numPartitions);
    this.coordinator.start();
  }

  /** A coordinator over the same store and topics (a restart of the node). */
  newCoordinator(): GroupCoordinator {
    return new GroupCoordinator({
      store: this.store,
      clock: this.clock,
      config: this.config,
      topics: this.topics,
      assignors: this.assignors,
      consumerAssignors: this.options.consumerAssignors,
      push: this.push,
      metrics: this.options.metrics,
      random: new SeededRandom(42),
      topicAccess: this.options.topicAccess,
    });
  }

  /** Restarts: the old coordinator stops, a new one replays every partition. */
  async restart(): Promise<void> {
    this.coordinator.close();
    this.coordinator = this.newCoordinator();
    this.coordinator.start();
    await this.settle();
  }

  /** The shard serving `groupId` (white-box tests reach into states the API cannot produce on demand). */
  shardOf(groupId: string): CoordinatorShard {
    const shard = (this.coordinator as unknown as { shards: ShardRegistry }).shards.get(this.partitionOf(groupId));
    if (!shard) throw new Error(`no shard for ${groupId}`);
    return shard;
  }

  partitionOf(groupId: string): number {
    return partitionFor(groupId, this.config.numPartitions);
  }

  context(connectionId?: string, clientId = 'client'): RequestContext {
    return { clientId, clientHost: '/127.0.0.1', connectionId: connectionId ?? `conn-${++this.connectionSeq}` };
  }

  /** Lets every pending promise chain run (write completions, loads). */
  async settle(): Promise<void> {
    for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
  }

  async advance(ms: number): Promise<void> {
    this.clock.advance(ms);
    await this.settle();
  }

  joinRequest(groupId: string, overrides: Partial<P.JoinGroupRequest> = {}): P.JoinGroupRequest {
    return {
      groupId,
      memberId: '',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 60_000,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: ['orders'] } }],
      ...overrides,
    };
  }

  /**
   * A dynamic member's first JoinGroup: KIP-394 answers MEMBER_ID_REQUIRED with an id, then the member
   * joins again with it. Returns the second (parked) JoinGroup.
   */
  async joinNew(
    groupId: string,
    overrides: Partial<P.JoinGroupRequest> = {},
    context = this.context(),
  ): Promise<{ memberId: string; join: Tracked<P.JoinGroupResponse> }> {
    const first = await this.coordinator.joinGroup(this.joinRequest(groupId, overrides), context);
    if (first.errorCode !== ErrorCode.MEMBER_ID_REQUIRED)
      throw new Error(`expected MEMBER_ID_REQUIRED, got ${JSON.stringify(first)}`);
    this.memberContexts.set(first.memberId, context);
    const join = track(
      this.coordinator.joinGroup(this.joinRequest(groupId, { ...overrides, memberId: first.memberId }), context),
    );
    await this.settle();
    return { memberId: first.memberId, join };
  }

  join(
    groupId: string,
    memberId: string,
    overrides: Partial<P.JoinGroupRequest> = {},
    context = this.contextOf(memberId),
  ): Tracked<P.JoinGroupResponse> {
    const tracked = track(this.coordinator.joinGroup(this.joinRequest(groupId, { ...overrides, memberId }), context));
    void tracked.promise.then(
      (r) => void (r.memberId && !this.memberContexts.has(r.memberId) && this.memberContexts.set(r.memberId, context)),
    );
    return tracked;
  }

  /** The connection `memberId` last used (a new one for a member not seen yet). */
  contextOf(memberId: string): RequestContext {
    return this.memberContexts.get(memberId) ?? this.context();
  }

  sync(
    groupId: string,
    memberId: string,
    generationId: number,
    assignments: P.SyncGroupAssignment[] = [],
    overrides: Partial<P.SyncGroupRequest> = {},
  ): Tracked<P.SyncGroupResponse> {
    return track(
      this.coordinator.syncGroup(
        { groupId, memberId, generationId, assignments, ...overrides },
        this.contextOf(memberId),
      ),
    );
  }

  heartbeat(
    groupId: string,
    memberId: string,
    generationId: number,
    groupInstanceId?: string,
  ): Promise<P.HeartbeatResponse> {
    return this.coordinator.heartbeat({ groupId, memberId, generationId, groupInstanceId }, this.contextOf(memberId));
  }

  commit(
    groupId: string,
    generationId: number,
    memberId: string,
    offsets: Record<string, Record<number, number>>,
    metadata?: string,
  ): Tracked<P.OffsetCommitResponse> {
    const topics = Object.entries(offsets).map(([name, partitions]) => ({
      name,
      partitions: Object.entries(partitions).map(([p, offset]) => ({
        partitionIndex: Number(p),
        committedOffset: offset,
        committedMetadata: metadata,
      })),
    }));
    return track(this.coordinator.offsetCommit({ groupId, generationId, memberId, topics }, this.contextOf(memberId)));
  }

  async fetch(
    groupId: string,
    topics: P.OffsetFetchTopic[] | null = null,
    requireStable = false,
  ): Promise<P.OffsetFetchResponse> {
    return this.coordinator.offsetFetch({ groupId, topics, requireStable });
  }

  /** Brings a group of `n` dynamic members to Stable (leader syncs `assignments`); returns ids and the generation. */
  async stableGroup(
    groupId: string,
    n: number,
    overrides: Partial<P.JoinGroupRequest> = {},
  ): Promise<{ memberIds: string[]; leader: string; generationId: number; contexts: RequestContext[] }> {
    const contexts: RequestContext[] = [];
    const joins: { memberId: string; join: Tracked<P.JoinGroupResponse> }[] = [];
    for (let i = 0; i < n; i++) {
      const context = this.context();
      contexts.push(context);
      joins.push(await this.joinNew(groupId, overrides, context));
    }
    // The initial delay is extended by each member that joined during it (KIP-134).
    await this.advance(0);
    for (let i = 0; i <= n && !joins.every((j) => j.join.done); i++)
      await this.advance(this.config.groupInitialRebalanceDelayMs);
    for (const { join } of joins) if (!join.done) throw new Error('join phase did not complete');
    const leader = joins[0].join.value.leader;
    const generationId = joins[0].join.value.generationId;
    const syncs = joins.map(({ memberId }) =>
      this.sync(
        groupId,
        memberId,
        generationId,
        memberId === leader
          ? joins.map((j, i) => ({
              memberId: j.memberId,
              assignment: { partitions: [{ topic: 'orders', partitions: [i] }] },
            }))
          : [],
      ),
    );
    await this.settle();
    for (const sync of syncs)
      if (!sync.done || sync.value.errorCode !== 0) throw new Error('sync phase did not complete');
    return { memberIds: joins.map((j) => j.memberId), leader, generationId, contexts };
  }

  /** Two dynamic members whose join phase just completed: CompletingRebalance, nobody synced yet. */
  async completingGroup(
    groupId: string,
    overrides: Partial<P.JoinGroupRequest> = {},
  ): Promise<{ leader: string; follower: string; generationId: number; joins: Tracked<P.JoinGroupResponse>[] }> {
    const a = await this.joinNew(groupId, overrides);
    const b = await this.joinNew(groupId, overrides);
    await this.advance(0);
    for (let i = 0; i < 3 && !a.join.done; i++) await this.advance(this.config.groupInitialRebalanceDelayMs);
    const leader = a.join.value.leader;
    const follower = leader === a.memberId ? b.memberId : a.memberId;
    return { leader, follower, generationId: a.join.value.generationId, joins: [a.join, b.join] };
  }

  async describe(groupId: string): Promise<P.DescribedGroup> {
    return (await this.coordinator.describeGroups({ groups: [groupId] })).groups[0];
  }
}
