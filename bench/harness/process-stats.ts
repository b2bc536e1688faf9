/** What the benchmarks read of another process (a node) from /proc. */
import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, ms) another process has used so far, from /proc (Linux; null elsewhere).
 * The commit benchmark prints it beside its figures so a reader can tell a server that is busy
 * (cores ≈ 1: the event loop is the limit) from one that is waiting on something.
 */
export function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    // Fields after the command name (which may contain spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every mainstream Linux build
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** Resident set size of another process in bytes, from /proc (Linux; NaN elsewhere). */
export function processRssBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) * 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
