import { KafkaError } from '@cohort/protocol';
import type { LogRecord, PartitionState } from '@cohort/replication';
import { produce, type InterceptDecision, type InterceptedMessage, type Partition } from '@cohort/replication/testing';
import { InvariantChecker, type CheckerOptions } from './invariant-checker';
import { SimCluster, type SimOptions } from './sim-cluster';

/** A staged scenario: a cluster, its invariant checker (after every step), and helpers. */
export class Scenario {
  readonly checker: InvariantChecker;
  private stepHooks: Array<() => void> = [];
  private interceptors: Array<(m: InterceptedMessage) => InterceptDecision | undefined> = [];

  constructor(
    readonly sim: SimCluster,
    checkerOptions: CheckerOptions = {},
  ) {
    this.checker = new InvariantChecker(sim, checkerOptions);
    sim.afterEachStep = () => {
      this.checker.check();
      for (const hook of this.stepHooks) hook();
    };
    this.recordTruncations();
    sim.network.interceptor = (m) => {
      for (const i of this.interceptors) {
        const d = i(m);
        if (d !== undefined) return d;
      }
      return 'deliver';
    };
  }

  static async start(
    options: Partial<SimOptions> & { nodes: number },
    checkerOptions: CheckerOptions = {},
  ): Promise<Scenario> {
    const s = new Scenario(new SimCluster({ seed: 1, ...options }), checkerOptions);
    await s.sim.start();
    return s;
  }

  /** Runs `hook` after every simulated step (for a scenario's own invariant); returns its remover. */
  everyStep(hook: () => void): () => void {
    this.stepHooks.push(hook);
    return () => void (this.stepHooks = this.stepHooks.filter((h) => h !== hook));
  }

  /** Adds a message rule (first rule with an answer wins); returns its remover. */
  intercept(rule: (m: InterceptedMessage) => InterceptDecision | undefined): () => void {
    this.interceptors.push(rule);
    return () => void (this.interceptors = this.interceptors.filter((r) => r !== rule));
  }

  /** Drops fetch traffic (requests and responses) between follower `follower` and leader `leader`. */
  blockFetches(follower: number, leader: number): () => void {
    return this.intercept((m) =>
      m.kind === 'fetch' && ((m.from === follower && m.to === leader) || (m.from === leader && m.to === follower))
        ? 'drop'
        : undefined,
    );
  }

  /** Produces one record with a unique value on node `nodeId`; acks=all successes go to the checker. */
  produce(
    nodeId: number,
    partition: number,
    value: string,
    acks: -1 | 1 = -1,
    key = value,
    timeoutMs = 5_000,
  ): Produced {
    const out: Produced = { value, status: 'pending' };
    const node = this.sim.node(nodeId);
    if (!node) {
      out.status = 'NODE_DOWN';
      return out;
    }
    out.done = produce(node.replicas, partition, [record(key, value, this.sim.clock.now())], acks, timeoutMs).then(
      (r) => {
        out.status = 'NONE';
        out.offset = r.baseOffset;
        if (acks === -1) this.checker.ack({ partition, offset: r.baseOffset, value });
      },
      (e: unknown) => {
        out.status = e instanceof KafkaError ? e.errorName : String(e);
      },
    );
    return out;
  }

  /** Produces and runs until acknowledged (throws if it fails). */
  async produceAcked(nodeId: number, partition: number, value: string, key = value): Promise<number> {
    const p = this.produce(nodeId, partition, value, -1, key);
    await this.sim.runUntil(() => p.status !== 'pending', 10_000);
    if (p.status !== 'NONE') throw new Error(`produce of ${value} failed: ${p.status}\n${this.sim.trace.dump(80)}`);
    return p.offset!;
  }

  /** Flushes a replica's log to its simulated disk, running the clock while the fsync completes. */
  async flush(nodeId: number, partition: number): Promise<void> {
    let done = false;
    void this.sim.disks
      .get(nodeId)!
      .logs.get(partition)!
      .flush()
      .finally(() => (done = true));
    await this.until(() => done, 1_000, `flush of node ${nodeId} p${partition}`);
  }

  /**
   * Ends a scenario the way a random run ends: heal every link, start every node that is down, wait
   * until every replica is back in sync, then run the checker's deep final checks (every replica
   * against the leader, every acknowledged write in the final log). Returns the violations.
   */
  async finish(maxMs = 60_000): Promise<string[]> {
    this.interceptors = [];
    this.sim.heal();
    for (const id of this.sim.nodeIds) if (!this.sim.isUp(id) && !this.sim.shuttingDown.has(id)) this.sim.startNode(id);
    await this.until(() => this.sim.fullyReplicated(), maxMs, 'the cluster to settle before the final checks');
    this.checker.final();
    return this.checker.violations;
  }

  async until(predicate: () => boolean, maxMs = 30_000, what = 'condition'): Promise<void> {
    const ok = await this.sim.runUntil(predicate, maxMs);
    if (!ok) throw new Error(`timed out waiting for ${what}\n${this.sim.trace.dump(120)}`);
  }

  replica(nodeId: number, partition: number): Partition {
    const r = this.sim.replica(nodeId, partition);
    if (!r) throw new Error(`node ${nodeId} has no replica of partition ${partition}`);
    return r;
  }

  /** Record values by offset in a replica's log. */
  values(nodeId: number, partition: number): Array<string | null> {
    const r = this.sim.replica(nodeId, partition) ?? undefined;
    const log = r?.log ?? this.sim.disks.get(nodeId)!.logs.get(partition)!;
    const out: Array<string | null> = [];
    for (const b of log.read(0, log.logEndOffset, Number.MAX_SAFE_INTEGER))
      for (const rec of b.records) out[rec.offset] = rec.value?.toString() ?? null;
    return out;
  }

  state(partition: number): PartitionState {
    return this.sim.state(partition);
  }

  /** The partition (of those on `nodes`) whose assignment order is exactly `replicas`. */
  partitionWithReplicas(replicas: number[]): number {
    for (const s of this.sim.statesNow().values()) if (s.replicas.join() === replicas.join()) return s.partition;
    throw new Error(`no partition with replicas [${replicas}]`);
  }

  /**
   * An operator (or reassignment) changes a partition through the controller's compare-and-set: a new
   * leader (ElectLeaders) or, with the same leader, a forced leader-epoch bump.
   */
  async adminChange(
    partition: number,
    change: (s: PartitionState) => Partial<PartitionState>,
  ): Promise<PartitionState> {
    const s = this.state(partition);
    const lease = await this.sim.store.getControllerLease();
    if (!lease) throw new Error('no controller');
    const next = { ...s, ...change(s), partitionEpoch: s.partitionEpoch + 1 };
    const outcome = await this.sim.store.compareAndSetPartition(s.partitionEpoch, next, lease.controllerEpoch);
    if (!outcome.ok) throw new Error(`admin change refused: ${outcome.reason}`);
    this.sim.trace.add(
      this.sim.clock.now(),
      `sim: operator changed p${partition}: leader ${next.leader} epoch ${next.leaderEpoch}`,
    );
    return outcome.state;
  }

  /** Truncations seen, for assertions. */
  truncations(): Array<{ nodeId: number; partition: number; toOffset: number; hw: number; reason: string }> {
    return this.truncationLog;
  }

  private readonly truncationLog: Array<{
    nodeId: number;
    partition: number;
    toOffset: number;
    hw: number;
    reason: string;
  }> = [];

  private recordTruncations(): void {
    const previous = this.sim.onTruncate;
    this.sim.onTruncate = (nodeId, partition, toOffset, hw, reason) => {
      this.truncationLog.push({ nodeId, partition, toOffset, hw, reason });
      previous?.(nodeId, partition, toOffset, hw, reason);
    };
  }
}

export interface Produced {
  value: string;
  status: string;
  offset?: number;
  done?: Promise<void>;
}

export function record(key: string, value: string | null, timestamp: number): LogRecord {
  return { key: Buffer.from(key), value: value === null ? null : Buffer.from(value), timestamp };
}

/** The fetch offset a (fetch) request carries for `partition`, for interceptors. */
export function fetchOffset(request: unknown, partition: number): number | undefined {
  const r = request as { partitions?: Array<{ partition: number; fetchOffset: number }> } | undefined;
  return r?.partitions?.find((x) => x.partition === partition)?.fetchOffset;
}
