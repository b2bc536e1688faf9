import { SeededRandom, type ReplicationConfig } from '@cohort/replication';
import type { BrokenRule } from './broken-rules';
import { InvariantChecker } from './invariant-checker';
import { SimCluster } from './sim-cluster';
import { STORE_NODE_ID } from './sim-store-link';
import { Workload, type OutcomeCounts } from './workload';

export interface RandomRunOptions {
  brokenRule?: BrokenRule;
  /** Invariants not to check (see InvariantChecker). */
  skipRules?: string[];
  /** Virtual time under faults, before healing. */
  faultPhaseMs?: number;
}

export interface RandomRunResult {
  seed: number;
  ok: boolean;
  violations: string[];
  trace: string;
  summary: string;
  steps: number;
  outcomes: OutcomeCounts;
}

/** One seed: a random cluster shape, a random fault schedule under load, invariants after every step. */
export async function runRandomSeed(seed: number, options: RandomRunOptions = {}): Promise<RandomRunResult> {
  const run = new RandomRun(seed, options);
  try {
    return await run.execute();
  } catch (e) {
    // A livelock or a crash of the code under test is a finding like any violation.
    return run.failure(e);
  }
}

class RandomRun {
  sim!: SimCluster;
  checker!: InvariantChecker;
  shape = '';

  constructor(
    private readonly seed: number,
    private readonly options: RandomRunOptions,
  ) {}

  failure(e: unknown): RandomRunResult {
    this.checker?.violations.push(`[error] ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`);
    return {
      seed: this.seed,
      ok: false,
      violations: this.checker?.violations ?? [String(e)],
      trace: this.sim?.trace.dump() ?? '',
      summary: this.shape,
      steps: this.sim?.clock.steps ?? 0,
      outcomes: {},
    };
  }

  async execute(): Promise<RandomRunResult> {
    const { seed, options } = this;
    const rng = new SeededRandom(seed ^ 0x5bd1e995);
    const nodes = 3 + rng.int(3);
    const config: Partial<ReplicationConfig> = {
      numPartitions: 2 + rng.int(3),
      minInsyncReplicas: rng.next() < 0.8 ? 2 : 1,
      eligibleLeaderReplicasEnable: rng.next() < 0.7,
      logFlushPolicy: rng.next() < 0.5 ? 'always' : 'replicated',
    };
    const slowNet = rng.next() < 0.3;
    const sim = new SimCluster({
      seed,
      nodes,
      config,
      network: slowNet ? { minDelayMs: 1, maxDelayMs: 40 } : { minDelayMs: 0, maxDelayMs: 3 },
      brokenRule: options.brokenRule,
    });
    const checker = new InvariantChecker(sim, { skipRules: options.skipRules });
    this.sim = sim;
    this.checker = checker;
    sim.afterEachStep = () => checker.check();
    const shape =
      (this.shape = `nodes=${nodes} partitions=${sim.config.numPartitions} minIsr=${sim.config.minInsyncReplicas} elr=${sim.config.eligibleLeaderReplicasEnable} flush=${sim.config.logFlushPolicy} net=${slowNet ? 'slow' : 'fast'}`);
    sim.trace.add(sim.clock.now(), `sim: seed ${seed} ${shape}`);

    await sim.start();
    const workload = new Workload(sim, checker, rng, `s${seed}`);
    workload.start(5, 40);
    const faults = new FaultSchedule(sim, rng);
    const faultPhase = options.faultPhaseMs ?? 20_000;
    const end = sim.clock.now() + faultPhase;
    while (sim.clock.now() < end && checker.ok) {
      const stepEnd = sim.clock.now() + 200 + rng.int(1_500);
      while (sim.clock.now() < stepEnd && checker.ok) {
        await sim.run(Math.min(20 + rng.int(60), stepEnd - sim.clock.now()));
        faults.watch();
      }
      faults.step();
    }
    workload.stop();
    faults.healAll();
    await sim.runUntil(() => sim.shuttingDown.size === 0, 30_000);
    for (const id of sim.nodeIds) if (!sim.isUp(id)) sim.startNode(id);
    await sim.runUntil(() => sim.fullyReplicated() || !checker.ok, 20_000);
    // With ELR, a partition whose every ISR/ELR member restarted without vouching for its data stays
    // offline (KIP-966) until an operator recovers it; in this fault model such restarts lost nothing.
    for (const s of sim.statesNow().values())
      if (s.leader === -1 && s.isr.length === 0) await sim.uncleanRecovery(s.partition);
    const settled = await sim.runUntil(() => sim.fullyReplicated() || !checker.ok, 60_000);
    if (!settled && checker.ok)
      checker.violations.push(`[liveness] cluster did not fully recover within 60 s after healing`);
    await sim.run(1_000);
    checker.final();
    return {
      seed,
      ok: checker.ok,
      violations: checker.violations,
      trace: sim.trace.dump(),
      summary: `${shape} acked=${checker.acked.length} faults=${faults.count}`,
      steps: sim.clock.steps,
      outcomes: workload.outcomes,
    };
  }
}

/**
 * Picks faults within the model the guarantees are stated for: crashes, cuts, slow and lossy links in
 * any number (they lose nothing), and a power cut (losing unflushed writes) under
 * LOG_FLUSH_POLICY=replicated only while every other replica is in sync — "the loss of any minority".
 */
class FaultSchedule {
  count = 0;
  private readonly impaired = new Set<number>();

  constructor(
    private readonly sim: SimCluster,
    private readonly rng: SeededRandom,
  ) {}

  step(): void {
    const r = this.rng.next();
    const pick = <T>(list: T[]): T | undefined => (list.length ? list[this.rng.int(list.length)] : undefined);
    const up = this.sim.nodeIds.filter((id) => this.sim.isUp(id));
    const upHealthy = up.filter((id) => !this.impaired.has(id));
    // Crashes and cuts lose nothing, so any number is within the model (availability suffers, not
    // safety); one node always stays up and reachable so the run keeps moving.
    const canImpair = upHealthy.length > 1;
    const down = this.sim.nodeIds.filter((id) => !this.sim.isUp(id));
    this.count++;
    if (r < 0.12 && canImpair) {
      this.crash(pick(upHealthy)!);
    } else if (r < 0.24 && canImpair) {
      // Kill the leader of a partition — and, now and then, its successor right after it is elected.
      const partition = this.rng.int(this.sim.config.numPartitions);
      const leader = this.sim.statesNow().get(partition)?.leader;
      if (leader !== undefined && upHealthy.includes(leader)) {
        this.crash(leader);
        if (this.rng.next() < 0.4) this.pendingSuccessorKill = { partition, after: leader };
      }
    } else if (r < 0.38 && down.length > 0) {
      const id = pick(down)!;
      this.impaired.delete(id);
      this.sim.startNode(id);
    } else if (r < 0.46 && canImpair) {
      const id = pick(upHealthy)!;
      this.impaired.add(id);
      this.sim.isolate(id);
    } else if (r < 0.52 && canImpair) {
      // Cut one node off the metadata store only: it must fence itself; a controller there fails over.
      const controller = this.sim.upNodes().find((n) => n.isController)?.id;
      const id =
        this.rng.next() < 0.5 && controller !== undefined && upHealthy.includes(controller)
          ? controller
          : pick(upHealthy)!;
      this.impaired.add(id);
      this.sim.network.partition([id], [STORE_NODE_ID]);
      this.sim.trace.add(this.sim.clock.now(), `sim: cut node ${id} off the metadata store`);
    } else if (r < 0.64) {
      const from = pick(this.sim.nodeIds)!;
      const to = pick(this.sim.nodeIds.filter((x) => x !== from))!;
      this.sim.network.setLink(from, to, { minDelayMs: 50, maxDelayMs: 900 });
      this.sim.trace.add(this.sim.clock.now(), `sim: slow link ${from} → ${to}`);
    } else if (r < 0.68) {
      this.sim.network.setDefaults({ lossRate: 0.05 });
      this.sim.trace.add(this.sim.clock.now(), `sim: 5% message loss`);
    } else if (r < 0.72 && canImpair && this.sim.shuttingDown.size === 0) {
      void this.sim.beginControlledShutdown(pick(upHealthy)!, 5_000);
    } else if (r < 0.84) {
      this.healNetwork();
    }
  }

  /** A successor to kill as soon as it leads (set by a leader kill). */
  private pendingSuccessorKill: { partition: number; after: number } | undefined;

  /** Called often between steps: kills a freshly elected successor when one is pending. */
  watch(): void {
    const pending = this.pendingSuccessorKill;
    if (!pending) return;
    const leader = this.sim.statesNow().get(pending.partition)?.leader;
    if (leader === undefined || leader === -1 || leader === pending.after) return;
    this.pendingSuccessorKill = undefined;
    if (this.sim.upNodes().length > 1 && this.sim.isUp(leader)) this.crash(leader);
  }

  private crash(id: number): void {
    this.sim.crash(id, {
      powerLoss: this.powerCutAllowed() && this.rng.next() < 0.5,
      keepUnflushedBatches: this.rng.int(2),
    });
  }

  /** Under `replicated`, a power cut is in the model only while everything else is in sync. */
  private powerCutAllowed(): boolean {
    if (this.sim.config.logFlushPolicy === 'always') return true;
    if (this.impaired.size > 0 || this.sim.upNodes().length !== this.sim.nodeIds.length) return false;
    return [...this.sim.statesNow().values()].every((s) => s.isr.length === s.replicas.length);
  }

  private healNetwork(): void {
    this.sim.heal();
    this.impaired.clear();
    this.sim.network.setDefaults({ lossRate: 0 });
    for (const a of this.sim.nodeIds) for (const b of this.sim.nodeIds) this.sim.network.setLink(a, b, null);
  }

  healAll(): void {
    this.healNetwork();
  }
}
