import { loadavg } from 'node:os';
/**
 * Section 1's large-group rows on their own, for profiling and A/B runs:
 *   npx tsx bench/large-group.ts [members=10000] [assignor: leader|range] (node from dist/, built first)
 * NODE_CPU_PROF=dir profiles the node (a .cpuprofile, as `node --cpu-prof` writes), written when it stops.
 * GROUP_INITIAL_REBALANCE_DELAY_MS is passed on to the node (default 3000, Kafka's).
 */
import { join } from 'node:path';
import { CohortProcess } from './harness/cohort-process';
import { LARGE_GROUP_NODE_ENV, memberJoinsLargeGroup } from './rebalance.bench';

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? '10000');
  const assignor = process.argv[3] === 'range' ? 'range' : null;
  const profile = process.env.NODE_CPU_PROF;
  const delay = process.env.GROUP_INITIAL_REBALANCE_DELAY_MS ?? '3000';
  const env: Record<string, string> = { ...LARGE_GROUP_NODE_ENV, GROUP_INITIAL_REBALANCE_DELAY_MS: delay };
  // NODE_OPTIONS refuses --cpu-prof: a preload starts the profiler instead.
  if (profile)
    Object.assign(env, {
      NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile-preload.cjs')}`,
      CPU_PROFILE_DIR: profile,
    });
  const node = await CohortProcess.start(env);
  try {
    const result = await memberJoinsLargeGroup(node, size, assignor);
    const round = (v: number) => Math.round(v);
    console.log(
      JSON.stringify({
        size,
        assignor: assignor ?? 'leader',
        initialDelayMs: Number(delay),
        ...result,
        formMs: round(result.formMs),
        formAfterJoinPhaseMs: round(result.formAfterJoinPhaseMs),
        joinMs: round(result.joinMs),
        rssPerMember: round(result.rssPerMember),
        rssPerCommittedPartition: round(result.rssPerCommittedPartition),
        workerCpuMs: round(result.workerCpuMs),
        workerMaxLoopDelayMs: round(result.workerMaxLoopDelayMs),
        load: loadavg()
          .map((l: number) => l.toFixed(1))
          .join(' '),
      }),
    );
  } finally {
    await node.dispose();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
