import { KafkaError } from '@cohort/protocol';
import type { SeededRandom } from '@cohort/replication';
import type { InvariantChecker } from './invariant-checker';
import type { SimCluster } from './sim-cluster';
import { produce } from '@cohort/replication/testing';

/** Counts of produce outcomes by error name ('NONE' for success). */
export type OutcomeCounts = Record<string, number>;

/**
 * Clients producing unique values under load. Each picks the node the metadata names as leader (a
 * stale or down choice fails like a real client's would); acks=all successes are handed to the checker,
 * which then insists they are never lost. Some keys repeat so that compaction has work to do.
 */
export class Workload {
  private seq = 0;
  private stopped = false;
  readonly outcomes: OutcomeCounts = {};

  constructor(
    private readonly sim: SimCluster,
    private readonly checker: InvariantChecker,
    private readonly rng: SeededRandom,
    private readonly tag: string,
  ) {}

  /** Produces one record every `minGapMs..maxGapMs` until stopped. */
  start(minGapMs: number, maxGapMs: number): void {
    const tick = () => {
      if (this.stopped) return;
      this.produceOne();
      this.sim.clock.schedule(minGapMs + this.rng.int(maxGapMs - minGapMs + 1), tick);
    };
    this.sim.clock.schedule(minGapMs, tick);
  }

  stop(): void {
    this.stopped = true;
  }

  produceOne(): void {
    const partition = this.rng.int(this.sim.config.numPartitions);
    const n = this.seq++;
    const value = `${this.tag}-${n}`;
    const key = this.rng.next() < 0.3 ? `hot-${partition}-${this.rng.int(5)}` : `key-${n}`;
    const acks: -1 | 1 = this.rng.next() < 0.85 ? -1 : 1;
    const s = this.sim.statesNow().get(partition);
    const up = this.sim.upNodes();
    const target = (s && this.sim.node(s.leader)) ?? up[this.rng.int(up.length)];
    if (!target) return;
    produce(
      target.replicas,
      partition,
      [{ key: Buffer.from(key), value: Buffer.from(value), timestamp: this.sim.clock.now() }],
      acks,
      3_000,
    ).then(
      (r) => {
        this.count('NONE');
        if (acks === -1) this.checker.ack({ partition, offset: r.baseOffset, value });
      },
      (e: unknown) => this.count(e instanceof KafkaError ? e.errorName : 'OTHER'),
    );
  }

  private count(name: string): void {
    this.outcomes[name] = (this.outcomes[name] ?? 0) + 1;
  }
}
