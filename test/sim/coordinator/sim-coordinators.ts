import {
  coordinatorConfig,
  GroupCoordinator,
  InMemoryTopicRegistry,
  StaticAssignorLookup,
  type CoordinatorConfig,
} from '@cohort/coordinator';
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
  readonly topics = new InMemoryTopicRegistry({ topics: [{ name: 'orders', partitions: 4, endOffsets: {} }] });

  constructor(
    private readonly sim: SimCluster,
    overrides: Partial<CoordinatorConfig> = {},
  ) {
    // Small load chunks: with simulated read latency a replay takes several steps.
    this.config = coordinatorConfig({
      numPartitions: sim.config.numPartitions,
      groupInitialRebalanceDelayMs: 0,
      loadBatchRecords: 20,
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
          push: {
            rebalanceInProgress: () => undefined,
            coordinatorMoved: () => undefined,
            heartbeatNow: () => undefined,
          },
          random: new SeededRandom(1_000 + id + this.sim.clock.now()),
        });
        coordinator.start();
        this.incarnations.set(id, { node, coordinator });
      }
    }
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
