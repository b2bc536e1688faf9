/** What the benchmarks read of another process (a node) from /proc. */
import { readdirSync, readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name (which may contain spaces): fields[0] is the
 * state, the 3rd field of the file; null where it cannot be read (not Linux, or the process is gone).
 */
function statFields(pid: number | undefined): string[] | null {
  if (pid === undefined) return null;
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system, ms) another process has used so far, from /proc (Linux; null elsewhere).
 * The commit benchmark prints it beside its figures so a reader can tell a server that is busy
 * (cores ≈ 1: the event loop is the limit) from one that is waiting on something.
 */
export function processCpuMs(pid: number | undefined): number | null {
  const fields = statFields(pid);
  if (fields === null) return null;
  // utime and stime, the 14th and 15th fields of the file.
  const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every mainstream Linux build
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
}

/**
 * CPU time (ms, to the nanosecond) another process's threads have run so far, from the scheduler's
 * count in /proc/<pid>/task/<tid>/schedstat (Linux); `processCpuMs` where that cannot be read. The
 * 10 ms ticks of `processCpuMs` are a tenth of a 100 ms sample: a measure made of many short samples
 * needs this one. A thread that exits is no longer counted, so subtract readings of threads that live
 * through the measure (a node's pools do).
 */
export function processRunMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // the thread exited between the listing and the read
      }
    }
    return Number.isFinite(ns) ? ns / 1e6 : processCpuMs(pid);
  } catch {
    return processCpuMs(pid);
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

/**
 * Minor page faults another process has taken so far: each is a page of memory it touched for the
 * first time, from /proc (Linux; NaN elsewhere). Beside `pageFaultMicros` it tells how much of a figure
 * is the machine giving a growing process memory.
 */
export function processMinorFaults(pid: number | undefined): number {
  // minflt, the 10th field of the file.
  return Number(statFields(pid)?.[7] ?? Number.NaN);
}
