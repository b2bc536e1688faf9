import {
  coordinatorConfig,
  GroupCoordinator,
  InMemoryTopicRegistry,
  StaticAssignorLookup,
  type CoordinatorConfig,
} from '@cohort/coordinator';
import { createServerRangeAssignor, createUniformAssignor } from '@cohort/assignors';
import type { HeartbeatNowPush } from '@cohort/protocol';
import type { ConsumerGroup } from '@cohort/coordinator/consumer/consumer-group';
import type { ShardRegistry } from '@cohort/coordinator/shard/shard-registry';
import type { ReplicationNode } from '@cohort/replication';
import { SeededRandom } from '@cohort/replication';
import { partitionFor } from '@cohort/protocol';
import type { SimCluster } from '../sim-cluster';
import { SlowReadStore } from './slow-read-store';

interface Incarnation {
  node: ReplicationNode;
  coordinator: GroupCoordinator;
}

/** What a client sees of one request: the answer, or that none came (node down or died meanwhile). */
export type CallOutcome<R> = { ok: true; value: R } | { ok: false; reason: 'unreachable' | 'lost' | 'timeout' };

/**
 * A GroupCoordinator on every running node of a simulated cluster, over that node's ReplicaManager —
 * the same wiring as cluster mode. A crashed node's coordinator dies with it (answers from a dead
 * incarnation never reach clients); a restarted node gets a fresh one.
 */
export class SimCoordinators {
  private readonly incarnations = new Map<number, Incarnation>();
  readonly config: CoordinatorConfig;
  readonly topics: InMemoryTopicRegistry;
  /** Where each connection's HeartbeatNow pushes go (consumer-protocol members register theirs). */
  private readonly pushTargets = new Map<string, (push: HeartbeatNowPush) => void>();
  heartbeatNowPushes = 0;

  constructor(
    private readonly sim: SimCluster,
    overrides: Partial<CoordinatorConfig> = {},
  ) {
    this.topics = new InMemoryTopicRegistry({
      topics: [
        { name: 'orders', partitions: 4, endOffsets: {} },
        { name: 'clicks', partitions: 6, endOffsets: {} },
        { name: 'jobs', partitions: 2, endOffsets: {} },
      ],
      clock: this.sim.clock,
    });
    // Small load chunks: with simulated read latency a replay takes several steps.
    this.config = coordinatorConfig({
      numPartitions: sim.config.numPartitions,
      groupInitialRebalanceDelayMs: 0,
      loadBatchRecords: 20,
      // Scaled down like the nodes' sessions: pauses of a few seconds fence consumer-protocol members.
      groupConsumerHeartbeatIntervalMs: 500,
      groupConsumerSessionTimeoutMs: 3_000,
      groupShareHeartbeatIntervalMs: 500,
      groupShareSessionTimeoutMs: 3_000,
      groupShareRecordLockDurationMs: 1_000,
      groupSharePartitionMaxRecordLocks: 40,
      groupShareAutoOffsetReset: 'earliest',
      ...overrides,
    });
  }

  /** Gives every newly started node its coordinator and forgets the dead ones. Call after (re)starts and crashes. */
  sync(): void {
    for (const id of this.sim.nodeIds) {
      const node = this.sim.node(id);
      const current = this.incarnations.get(id);
      if (current && current.node !== node) {
        current.coordinator.close();
        this.incarnations.delete(id);
      }
      if (node && !this.incarnations.has(id)) {
        const coordinator = new GroupCoordinator({
          store: new SlowReadStore(node.replicas, this.sim.clock, 3),
          clock: this.sim.clock,
          config: this.config,
          topics: this.topics,
          assignors: new StaticAssignorLookup([]),
          consumerAssignors: [createUniformAssignor(), createServerRangeAssignor()],
          push: {
            rebalanceInProgress: () => undefined,
            coordinatorMoved: () => undefined,
            heartbeatNow: (connectionId, push) => this.deliverHeartbeatNow(id, node, connectionId, push),
          },
          random: new SeededRandom(1_000 + id + this.sim.clock.now()),
        });
        coordinator.start();
        this.incarnations.set(id, { node, coordinator });
      }
    }
  }

  /** A client's connection: HeartbeatNow pushes for it are handed to `handler` (undefined: closed). */
  onHeartbeatNow(connectionId: string, handler: ((push: HeartbeatNowPush) => void) | undefined): void {
    if (handler) this.pushTargets.set(connectionId, handler);
    else this.pushTargets.delete(connectionId);
  }

  /** A push crosses the network (1 ms) and reaches the client only if the node that sent it is still that incarnation. */
  private deliverHeartbeatNow(
    nodeId: number,
    node: ReplicationNode,
    connectionId: string,
    push: HeartbeatNowPush,
  ): void {
    this.sim.clock.schedule(1, () => {
      const target = this.pushTargets.get(connectionId);
      if (!target || this.sim.node(nodeId) !== node) return;
      this.heartbeatNowPushes++;
      target(push);
    });
  }

  /**
   * The consumer group as the node now named its coordinator holds it, read synchronously (the ownership
   * check runs after every step, and the coordinator's public reads are requests answered later).
   * `unavailable` while no incarnation of that node serves the group's partition (down or loading).
   */
  consumerGroupNow(groupId: string): ConsumerGroup | undefined | 'unavailable' {
    const partition = partitionFor(groupId, this.config.numPartitions);
    const coordinator = this.coordinator(this.coordinatorNodeFor(groupId));
    if (!coordinator?.isServing(partition)) return 'unavailable';
    const shards = (coordinator as unknown as { shards: ShardRegistry }).shards;
    return shards.get(partition)?.consumerGroup(groupId);
  }

  /**
   * The share group `groupId` as the coordinator that leads now serves it (its members, and its
   * partitions' state epoch and SPSO), read synchronously; `unavailable` unless the metadata leader's shard is active in the
   * metadata's leader epoch (a deposed leader that has not heard yet is not the one that leads).
   */
  sharePartitionsNow(groupId: string):
    | {
        incarnation: string;
        /** As share workers name a lease's grantor: leader * 1,000,000 + leader epoch. */
        grantor: number;
        members: string[];
        partitions: { tp: string; stateEpoch: number; startOffset: number }[];
      }
    | 'unavailable' {
    const partition = partitionFor(groupId, this.config.numPartitions);
    const { leader, leaderEpoch } = this.sim.state(partition);
    const coordinator = this.coordinator(leader);
    const shard = (coordinator as unknown as { shards: ShardRegistry } | undefined)?.shards.get(partition);
    if (!shard?.isActive || shard.leaderEpoch !== leaderEpoch) return 'unavailable';
    return {
      incarnation: `node ${leader} in leader epoch ${leaderEpoch}`,
      grantor: leader * 1_000_000 + leaderEpoch,
      members: [...(shard.shareGroup(groupId)?.members.keys() ?? [])],
      partitions: shard.sharePartitions.slotsOf(groupId).map((slot) => ({
        tp: `${groupId}/${slot.topic}-${slot.partition}`,
        stateEpoch: slot.state.stateEpoch,
        startOffset: slot.state.startOffset,
      })),
    };
  }

  coordinator(nodeId: number): GroupCoordinator | undefined {
    return this.incarnations.get(nodeId)?.coordinator;
  }

  /** FindCoordinator: the node the metadata names as leader of the group's partition. */
  coordinatorNodeFor(groupId: string): number {
    return this.sim.state(partitionFor(groupId, this.config.numPartitions)).leader;
  }

  /**
   * Sends a request to `nodeId`'s coordinator; the answer counts only if that incarnation is still
   * alive when it comes, and only within `timeoutMs` (a client's request timeout).
   */
  call<R>(nodeId: number, request: (c: GroupCoordinator) => Promise<R>, timeoutMs: number): Promise<CallOutcome<R>> {
    const incarnation = this.incarnations.get(nodeId);
    if (!incarnation || this.sim.node(nodeId) !== incarnation.node)
      return Promise.resolve({ ok: false, reason: 'unreachable' });
    return new Promise((resolve) => {
      let settled = false;
      const timer = this.sim.clock.schedule(timeoutMs, () => {
        if (!settled) {
          settled = true;
          resolve({ ok: false, reason: 'timeout' });
        }
      });
      request(incarnation.coordinator).then((value) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        resolve(this.sim.node(nodeId) === incarnation.node ? { ok: true, value } : { ok: false, reason: 'lost' });
      });
    });
  }
}
