/**
 * Section `socket-hot-events` of `npm run bench`: the hot socket events, OffsetCommit and Heartbeat, from
 * 100 sockets in closed loops (a request leaves when the previous answer arrived), against one node:
 *
 *   npm run bench -- socket-hot-events http://127.0.0.1:3000 [node pid, for its CPU]
 *       measures a node that is already running;
 *   npm run bench -- socket-hot-events --ab <baseline checkout, built: dist/src/main.js>
 *       runs nodes of the baseline's build (A) and of this checkout's (B) alternately, A B A B …, a fresh
 *       node per run (LOG_FLUSH_POLICY=always), and prints each build's medians and the ratio B / A.
 *       BENCH_AB_ROUNDS (default 3) runs of each; BENCH_SECONDS (5) per event and run.
 *
 * Without arguments (as when every section runs) it measures nothing and says so. BENCH_SCALE shrinks
 * the 100 sockets as in every section.
 * OffsetCommit: socket i is a simple consumer (generation -1) of group `hot-commit-<i>`, committing its
 * own partition. Heartbeat: socket i is the only member of group `hot-heartbeat-<i>`, joined and synced
 * first. The node needs a topic `hot-events` with a partition per socket; it is created if missing.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type * as P from '@cohort/protocol';
import { GroupMember } from '../test/support/group-member';
import { connect, request } from '../test/support/socket-client';
import { CohortProcess } from './harness/cohort-process';
import { processCpuMs } from './harness/process-stats';
import { scaled } from './harness/scale';
import type { BenchSection } from './harness/section';
import { median, ms, perSecond, percentile, ratio, table } from './harness/stats';

export const socketHotEventsSection: BenchSection = {
  name: 'socket-hot-events',
  summary: 'OffsetCommit and Heartbeat from 100 sockets on a running node, or on an older build and this one, A B A B',
  usage: '<node URL> [pid] | --ab <baseline checkout, built: dist/src/main.js>',
  needsBuild: true,
  run: (args) => socketHotEvents(args),
};

const SOCKETS = scaled(100, 2);
const SECONDS = Math.max(1, Number(process.env.BENCH_SECONDS ?? 5));
const ROUNDS = Math.max(1, Number(process.env.BENCH_AB_ROUNDS ?? 3));
const TOPIC = 'hot-events';

export interface HotEventResult {
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
  /** Node CPU (ms) per 1,000 requests; null without the node's pid. */
  cpuPerThousand: number | null;
}

/** `sockets` closed loops of `once` for `durationMs`, after a 500 ms warm-up. */
async function closedLoops(
  sockets: number,
  durationMs: number,
  once: (loop: number, sequence: number) => Promise<boolean>,
  pid: number | undefined,
): Promise<HotEventResult> {
  const run = async (ms: number) => {
    const latencies: number[] = [];
    let errors = 0;
    const deadline = Date.now() + ms;
    await Promise.all(
      Array.from({ length: sockets }, async (_, loop) => {
        for (let sequence = 0; Date.now() < deadline; sequence++) {
          const sent = process.hrtime.bigint();
          if (!(await once(loop, sequence))) errors++;
          latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        }
      }),
    );
    return { latencies, errors };
  };
  await run(500);
  const cpuBefore = processCpuMs(pid);
  const started = process.hrtime.bigint();
  const { latencies, errors } = await run(durationMs);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const cpuAfter = processCpuMs(pid);
  latencies.sort((a, b) => a - b);
  return {
    throughput: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    cpuPerThousand: cpuBefore === null || cpuAfter === null ? null : ((cpuAfter - cpuBefore) * 1000) / latencies.length,
  };
}

/** OffsetCommit and Heartbeat against the node at `url`. */
export async function hotEvents(
  url: string,
  pid?: number,
): Promise<{ OffsetCommit: HotEventResult; Heartbeat: HotEventResult }> {
  const created = await fetch(`${url}/v1/topics`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: TOPIC, partitions: SOCKETS }),
  });
  if (created.status !== 201 && created.status !== 409) throw new Error(`creating ${TOPIC}: ${created.status}`);
  const committers = await Promise.all(
    Array.from({ length: SOCKETS }, (_, i) => connect(url, { clientId: `hot-commit-${i}` })),
  );
  const members: GroupMember[] = [];
  try {
    const OffsetCommit = await closedLoops(
      SOCKETS,
      SECONDS * 1000,
      async (loop, sequence) => {
        const answer = await request<P.OffsetCommitResponse>(committers[loop], 'OffsetCommit', {
          groupId: `hot-commit-${loop}`,
          generationId: -1,
          memberId: '',
          topics: [{ name: TOPIC, partitions: [{ partitionIndex: loop, committedOffset: sequence }] }],
        });
        return answer.errorCode === 0 && answer.topics[0].partitions[0].errorCode === 0;
      },
      pid,
    );
    for (let i = 0; i < SOCKETS; i++)
      members.push(await GroupMember.connect(url, `hot-heartbeat-${i}`, { topics: [TOPIC], clientId: `hot-${i}` }));
    await Promise.all(
      members.map(async (member) => {
        const joined = await member.join();
        if (joined.errorCode !== 0) throw new Error(`JoinGroup: ${JSON.stringify(joined)}`);
        const synced = await member.sync(joined);
        if (synced.errorCode !== 0) throw new Error(`SyncGroup: ${JSON.stringify(synced)}`);
      }),
    );
    const Heartbeat = await closedLoops(
      SOCKETS,
      SECONDS * 1000,
      async (loop) => (await members[loop].heartbeat()).errorCode === 0,
      pid,
    );
    return { OffsetCommit, Heartbeat };
  } finally {
    committers.forEach((socket) => socket.disconnect());
    members.forEach((member) => member.socket.disconnect());
  }
}

function print(results: { OffsetCommit: HotEventResult; Heartbeat: HotEventResult }): void {
  table(
    ['event', 'requests/s', 'p50', 'p99', 'errors', 'node CPU per 1,000'],
    Object.entries(results).map(([event, r]) => [
      event,
      perSecond(r.throughput),
      ms(r.p50),
      ms(r.p99),
      String(r.errors),
      r.cpuPerThousand === null ? '-' : ms(r.cpuPerThousand),
    ]),
  );
}

/** A B A B …: a fresh node of each build per run, the baseline's (A) from its own dist/. */
async function alternate(baseline: string): Promise<void> {
  const samples = { A: [] as HotEventResult[][], B: [] as HotEventResult[][] };
  for (let round = 0; round < ROUNDS; round++) {
    for (const build of ['A', 'B'] as const) {
      if (build === 'A') process.env.BENCH_DIST = baseline;
      else delete process.env.BENCH_DIST;
      const node = await CohortProcess.start({ GROUP_INITIAL_REBALANCE_DELAY_MS: '0', LOG_FLUSH_POLICY: 'always' });
      try {
        const results = await hotEvents(node.url, node.pid);
        samples[build].push([results.OffsetCommit, results.Heartbeat]);
        console.log(
          `run ${round + 1} ${build}: OffsetCommit ${perSecond(results.OffsetCommit.throughput)}, Heartbeat ${perSecond(results.Heartbeat.throughput)}`,
        );
      } finally {
        await node.dispose();
        delete process.env.BENCH_DIST;
      }
    }
  }
  const rows: string[][] = [];
  for (const [index, event] of ['OffsetCommit', 'Heartbeat'].entries()) {
    const of = (build: 'A' | 'B', pick: (r: HotEventResult) => number | null) =>
      median(samples[build].map((run) => pick(run[index]) ?? Number.NaN));
    for (const [what, pick, format] of [
      ['requests/s', (r: HotEventResult) => r.throughput, perSecond],
      ['p99', (r: HotEventResult) => r.p99, ms],
      ['node CPU per 1,000', (r: HotEventResult) => r.cpuPerThousand, ms],
    ] as const) {
      const a = of('A', pick);
      const b = of('B', pick);
      rows.push([`${event} ${what}`, format(a), format(b), ratio(b, a)]);
    }
  }
  console.log(`\nmedians of ${ROUNDS} runs each, ${SOCKETS} sockets, ${SECONDS} s per event and run`);
  table(['', 'A (baseline)', 'B (this checkout)', 'B / A'], rows);
}

async function socketHotEvents([first, second]: string[]): Promise<void> {
  if (first === '--ab') {
    const baseline = resolve(second ?? '');
    if (second === undefined || !existsSync(resolve(baseline, 'dist', 'src', 'main.js'))) {
      console.log('  not measured: --ab needs a baseline checkout, built (dist/src/main.js)');
      return;
    }
    await alternate(baseline);
  } else if (first !== undefined && /^https?:\/\//.test(first)) {
    print(await hotEvents(first.replace(/\/$/, ''), second === undefined ? undefined : Number(second)));
  } else {
    console.log('  not measured: give a node URL, or --ab and a baseline checkout');
  }
}
