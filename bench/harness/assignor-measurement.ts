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

/**
 * The calls of one measurement with `runs` warm calls, the process's first included: how many there
 * are and which are timed (the first, the warm ones, then, after SETTLE_CALLS untimed, the settled ones).
 */
export function measuredCalls(runs: number): { total: number; timed: (call: number) => boolean } {
  const settleFrom = runs + 1;
  if (runs === 0) return { total: settleFrom, timed: () => true };
  const settledFrom = settleFrom + SETTLE_CALLS;
  return {
    total: settledFrom + SETTLED_RUNS_PER_RUN * runs,
    timed: (call) => call < settleFrom || call >= settledFrom,
  };
}

/** A measurement from its timed calls in order (wall and CPU, ms), as `measuredCalls(runs)` times them. */
export function measurementOf(walls: number[], cpus: number[], runs: number, moved: number): AssignorMeasurement {
  const settleFrom = runs + 1;
  return {
    firstMs: walls[0],
    warm: walls.slice(1, settleFrom),
    firstCpuMs: cpus[0],
    warmCpu: cpus.slice(1, settleFrom),
    settled: walls.slice(settleFrom),
    settledCpu: cpus.slice(settleFrom),
    settleCalls: runs > 0 ? SETTLE_CALLS : 0,
    moved,
  };
}

/** This process's CPU time since `since`, ms. */
export function cpuMs(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}
