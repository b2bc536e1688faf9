/**
 * Section 1's large-group rows on their own, for profiling and A/B runs:
 *   npx tsx bench/large-group.ts [members=10000] [assignor: leader|range] (node from dist/, built first)
 * NODE_CPU_PROF=dir profiles the node (`node --cpu-prof`), written when it stops.
 */
import { CohortProcess } from './harness/cohort-process';
import { memberJoinsLargeGroup } from './rebalance.bench';

async function main(): Promise<void> {
  const size = Number(process.argv[2] ?? '10000');
  const assignor = process.argv[3] === 'range' ? 'range' : null;
  const profile = process.env.NODE_CPU_PROF;
  const env: Record<string, string> = { MAX_CONNECTIONS_PER_IP: String(size + 100) };
  if (profile) env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${profile}`;
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
