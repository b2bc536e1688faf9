/**
 * Section 1's large-group rows on their own, for profiling and A/B runs:
 *   npx tsx bench/large-group.ts [members=10000] [assignor: leader|range] (node from dist/, built first)
 * NODE_CPU_PROF=dir profiles the node (a .cpuprofile, as `node --cpu-prof` writes), written when it stops.
 */
import { join } from 'node:path';
import { CohortProcess } from './harness/cohort-process';
import { memberJoinsLargeGroup } from './rebalance.bench';

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? '10000');
  const assignor = process.argv[3] === 'range' ? 'range' : null;
  const profile = process.env.NODE_CPU_PROF;
  const env: Record<string, string> = { MAX_CONNECTIONS_PER_IP: String(size + 100) };
  // NODE_OPTIONS refuses --cpu-prof: a preload starts the profiler instead.
  if (profile) Object.assign(env, { NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile-preload.cjs')}`, CPU_PROFILE_DIR: profile });
  const node = await CohortProcess.start(env);
  try {
    const result = await memberJoinsLargeGroup(node, size, assignor);
    console.log(JSON.stringify({ size, assignor: assignor ?? 'leader', ...result, load: require('node:os').loadavg().map((l: number) => l.toFixed(1)).join(' ') }));
  } finally {
    await node.dispose();
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
