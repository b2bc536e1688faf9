/** What one shape of `npm run bench -- server-assignors` reports from its child process. */
export interface AssignorMeasurement {
  firstMs: number;
  warm: number[];
  /** The same calls' process CPU time (main thread and GC threads), steadier than wall time on a shared machine. */
  firstCpuMs: number;
  warmCpu: number[];
  /**
   * SETTLED_RUNS_PER_RUN × N calls made after SETTLE_CALLS more unmeasured ones, as Kafka's side times
   * its settled calls: V8 is still tiering up and deoptimizing, and its young generation still
   * growing, through the first twenty or so calls of this size.
   */
  settled: number[];
  settledCpu: number[];
  settleCalls: number;
  /** How many members' targets the first call changed. */
  moved: number;
}

/**
 * Unmeasured calls before the settled ones: Kafka's side (KafkaAssignorBench.java) settles for at
 * least as many, and V8's optimized code and young generation stop changing well before.
 */
export const SETTLE_CALLS = 50;
/** Settled calls per warm one: Kafka's side times as many. */
export const SETTLED_RUNS_PER_RUN = 3;

/** This process's CPU time since `since`, ms. */
export function cpuMs(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}
