/** Where another process's CPU goes, thread by thread, from /proc/<pid>/task (Linux only). */
import { readdirSync, readFileSync } from 'node:fs';

/** CPU time (ms) of a node's event-loop thread and of all its other threads, user and system apart. */
export interface ThreadCpu {
  loopUserMs: number;
  loopSystemMs: number;
  /** libuv's pool (fdatasync, file opens) and V8's helpers (garbage collection, compilers), together. */
  otherUserMs: number;
  otherSystemMs: number;
}

const CLOCK_TICKS_PER_SECOND = 100; // USER_HZ, 100 on every mainstream Linux build

/**
 * utime and stime (ms) of one /proc/.../stat line. The command name, in parentheses, may hold spaces
 * and parentheses of its own, so the fields are counted from the last `)`: utime and stime are the
 * 12th and 13th after it.
 */
export function statCpuMs(stat: string): { userMs: number; systemMs: number } {
  const close = stat.lastIndexOf(')');
  if (close < 0) throw new Error(`not a /proc stat line: ${stat.slice(0, 80)}`);
  const fields = stat.slice(close + 2).split(' ');
  const user = Number(fields[11]);
  const system = Number(fields[12]);
  if (!Number.isFinite(user) || !Number.isFinite(system)) throw new Error(`no utime/stime in: ${stat.slice(0, 80)}`);
  return { userMs: (user * 1000) / CLOCK_TICKS_PER_SECOND, systemMs: (system * 1000) / CLOCK_TICKS_PER_SECOND };
}

/**
 * The CPU of `pid`'s threads so far: its event loop (the main thread, whose id is the process's) apart
 * from the others. A thread that has exited is no longer listed, so subtract two readings of threads
 * that live through the run (a node's pools do). NaN everywhere when /proc cannot be read.
 */
export function threadCpuMs(pid: number | undefined): ThreadCpu {
  const cpu: ThreadCpu = { loopUserMs: 0, loopSystemMs: 0, otherUserMs: 0, otherSystemMs: 0 };
  if (pid === undefined) return unknown();
  try {
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      let stat: string;
      try {
        stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      } catch {
        continue; // the thread exited between the listing and the read
      }
      const { userMs, systemMs } = statCpuMs(stat);
      if (tid === String(pid)) {
        cpu.loopUserMs += userMs;
        cpu.loopSystemMs += systemMs;
      } else {
        cpu.otherUserMs += userMs;
        cpu.otherSystemMs += systemMs;
      }
    }
    return cpu;
  } catch {
    return unknown();
  }
}

/** `after` minus `before`, field by field. */
export function threadCpuSince(before: ThreadCpu, after: ThreadCpu): ThreadCpu {
  return {
    loopUserMs: after.loopUserMs - before.loopUserMs,
    loopSystemMs: after.loopSystemMs - before.loopSystemMs,
    otherUserMs: after.otherUserMs - before.otherUserMs,
    otherSystemMs: after.otherSystemMs - before.otherSystemMs,
  };
}

function unknown(): ThreadCpu {
  return { loopUserMs: NaN, loopSystemMs: NaN, otherUserMs: NaN, otherSystemMs: NaN };
}
