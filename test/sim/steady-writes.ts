import type { Produced, Scenario } from './scenario-kit';

export type TimedWrite = Produced & { at: number; doneAt?: number };

/** Keeps one acks=all write in flight on `nodeId` for `partition`, until stopped; records each latency. */
export function steadyWrites(
  s: Scenario,
  nodeId: number,
  partition: number,
): { writes: TimedWrite[]; stop: () => void } {
  const writes: TimedWrite[] = [];
  let stopped = false;
  const next = (): void => {
    if (stopped) return;
    const w = Object.assign(s.produce(nodeId, partition, `w${writes.length}`, -1, `w${writes.length}`, 20_000), {
      at: s.sim.clock.now(),
    }) as TimedWrite;
    writes.push(w);
    void w.done?.finally(() => {
      w.doneAt = s.sim.clock.now();
      s.sim.clock.schedule(5, next);
    });
  };
  next();
  return { writes, stop: () => void (stopped = true) };
}

/**
 * The longest any write in flight at or after `since` waited, measured from the later of its start and
 * `since`: what a client of the partition's coordinator notices of a fault at `since`.
 */
export function longestStall(writes: TimedWrite[], since: number): number {
  return Math.max(...writes.filter((w) => w.doneAt! >= since).map((w) => w.doneAt! - Math.max(w.at, since)));
}
