/**
 * What the two replication sections share (`replication`: the protocol in the simulator, one process;
 * `replication-network`: three processes over the network transport): the setups compared, the record
 * appended (offset-commit sized), the loads, and the table printed, so that their figures read alike.
 */
import { ratio, table } from './stats';

export interface ReplicationSetup {
  name: string;
  nodes: number;
  replicationFactor: number;
  minInsyncReplicas: number;
  logFlushPolicy: 'always' | 'replicated';
}

const SINGLE = { nodes: 1, replicationFactor: 1, minInsyncReplicas: 1 } as const;
const THREE = { nodes: 3, replicationFactor: 3, minInsyncReplicas: 2 } as const;

/** One node whose acknowledged appends are durable by fsync (group-committed), as embedded mode runs. */
export const SINGLE_NODE_ALWAYS: ReplicationSetup = {
  name: 'single node, RF 1 (flush: always)',
  ...SINGLE,
  logFlushPolicy: 'always',
};
/** Acknowledged when appended in memory, before any fsync or copy: what the log alone costs. */
export const SINGLE_NODE_REPLICATED: ReplicationSetup = {
  name: 'single node, RF 1 (flush: replicated)',
  ...SINGLE,
  logFlushPolicy: 'replicated',
};
/** Cluster mode's defaults: durable by being on two of three replicas (Kafka's way). */
export const THREE_REPLICAS: ReplicationSetup = {
  name: '3 replicas, acks=all, min ISR 2 (flush: replicated)',
  ...THREE,
  logFlushPolicy: 'replicated',
};
export const THREE_REPLICAS_ALWAYS: ReplicationSetup = {
  name: '3 replicas, acks=all, min ISR 2 (flush: always)',
  ...THREE,
  logFlushPolicy: 'always',
};

/** One offset commit's record: key ~48 bytes (group/topic/partition), value ~96 bytes (offset, epoch, metadata). */
export const APPEND_KEY = Buffer.alloc(48, 'k');
export const APPEND_VALUE = Buffer.alloc(96, 'v');

/** Appends in flight (per partition in the simulator, per node over the network): 1 shows the latency of the path, 32 the throughput under load. */
export const APPEND_LOADS = [1, Number(process.env.BENCH_CONCURRENCY ?? 32)];

/** How long each load is measured (after its warm-up): BENCH_MEASURE_MS, or the section's default. */
export function measureMs(defaultMs: number): number {
  return Number(process.env.BENCH_MEASURE_MS ?? defaultMs);
}

export interface AppendResult {
  perSecond: number;
  /** Commit latency, ms. */
  p50: number;
  p99: number;
  failed: number;
}

/** Latencies here are often microseconds. */
function latency(valueMs: number): string {
  if (!Number.isFinite(valueMs)) return 'n/a';
  return valueMs < 1 ? `${Math.round(valueMs * 1000)} µs` : `${valueMs.toFixed(2)} ms`;
}

/** One table per load: `results[setup][load]`, every setup beside the first (the baseline) as ratios. */
export function printAppendResults(setups: ReplicationSetup[], results: AppendResult[][], perWhat: string): void {
  APPEND_LOADS.forEach((load, l) => {
    const base = results[0][l];
    console.log(`\n${load} append(s) in flight per ${perWhat}; baseline: ${setups[0].name}`);
    table(
      ['setup', 'appends/s', 'vs baseline', 'p50', 'p99', 'p50 vs baseline', 'failed'],
      setups.map((setup, s) => {
        const r = results[s][l];
        return [
          setup.name,
          `${Math.round(r.perSecond).toLocaleString('en-US')}/s`,
          ratio(r.perSecond, base.perSecond),
          latency(r.p50),
          latency(r.p99),
          ratio(r.p50, base.p50),
          String(r.failed),
        ];
      }),
    );
  });
}
