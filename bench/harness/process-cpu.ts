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
