/** What one shape of `npm run bench -- server-assignors` reports from its child process. */
export interface AssignorMeasurement {
  firstMs: number;
  warm: number[];
  /** The same calls' process CPU time (main thread and GC threads), steadier than wall time on a shared machine. */
  firstCpuMs: number;
  warmCpu: number[];
  /** How many members' targets the first call changed. */
  moved: number;
}

/** This process's CPU time since `since`, ms. */
export function cpuMs(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}
