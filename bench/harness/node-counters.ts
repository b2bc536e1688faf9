import type { CohortProcess } from './cohort-process';
import { processCpuMs } from './process-stats';
import { type ThreadCpu, threadCpuMs, threadCpuSince } from './thread-cpu';

/** What a node has done so far, read from /proc and its /metrics: subtract two readings for a run's share. */
export interface NodeCounters {
  /** Process CPU (user + system, every thread: the journal's fdatasyncs run on libuv's pool). */
  cpuMs: number;
  /** The same CPU split between the event loop and the other threads, user and system apart. */
  threads: ThreadCpu;
  /** Journal flushes (one write and one fdatasync each; none under LOG_FLUSH_POLICY=replicated). */
  flushes: number;
  /** Requests of the APIs named answered, any outcome, any transport. */
  requests: number;
}

/**
 * The node's counters now. On a shared machine a node's CPU per request and its flushes per request
 * move far less from run to run than its wall-clock throughput does (which follows how much of the
 * cores the other processes leave it), so an A/B can compare them when the throughput cannot be.
 */
export async function nodeCounters(node: CohortProcess, apis: readonly string[]): Promise<NodeCounters> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  let flushes = 0;
  let requests = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('cohort_log_flush_duration_seconds_count')) flushes += Number(line.split(' ').pop());
    else if (line.startsWith('cohort_requests_total{') && apis.some((api) => line.includes(`api="${api}"`)))
      requests += Number(line.split(' ').pop());
  }
  return { cpuMs: processCpuMs(node.pid) ?? Number.NaN, threads: threadCpuMs(node.pid), flushes, requests };
}

/** `after` minus `before`, counter by counter. */
export function countersSince(before: NodeCounters, after: NodeCounters): NodeCounters {
  return {
    cpuMs: after.cpuMs - before.cpuMs,
    threads: threadCpuSince(before.threads, after.threads),
    flushes: after.flushes - before.flushes,
    requests: after.requests - before.requests,
  };
}

/** Several runs' counters added up, counter by counter (a side measured in rounds). */
export function countersTotal(runs: readonly NodeCounters[]): NodeCounters {
  const sum = (pick: (run: NodeCounters) => number) => runs.reduce((total, run) => total + pick(run), 0);
  return {
    cpuMs: sum((run) => run.cpuMs),
    threads: {
      loopUserMs: sum((run) => run.threads.loopUserMs),
      loopSystemMs: sum((run) => run.threads.loopSystemMs),
      otherUserMs: sum((run) => run.threads.otherUserMs),
      otherSystemMs: sum((run) => run.threads.otherSystemMs),
    },
    flushes: sum((run) => run.flushes),
    requests: sum((run) => run.requests),
  };
}
