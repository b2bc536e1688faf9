/**
 * `npm run bench`: every benchmark of Cohort, one section after another, on loopback, bounded in time.
 * Nodes run as child processes from dist/ (built first when a chosen section needs it), clients run
 * here. Every figure is printed beside a baseline measured in the same run, as a ratio.
 *
 *   npm run bench                          every section, in the order below
 *   npm run bench -- <section> [args...]   one section (its arguments: see --list)
 *   npm run bench -- <a>,<b>               some sections, in the order given
 *   npm run bench -- --list                the sections, what each measures, their arguments
 *
 * BENCH_SCALE=0.1 shrinks every size for a quick look (bench/harness/scale.ts). BENCH_DIST=<checkout>
 * runs the nodes from that checkout's dist/, BENCH_NODE_ARGS adds node flags to every node started
 * (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`), BENCH_NODE_LOG=<file> keeps the nodes' output.
 */
import { assignorsSection } from './assignors.bench';
import { authorizationSection } from './auth.bench';
import { authenticationSection } from './authentication.bench';
import { beforeAfterSection } from './before-after.bench';
import { sdkGroupSection } from './client-group.bench';
import { sdkOverheadSection } from './client-overhead.bench';
import { commitsSection } from './commit.bench';
import { compactionSection } from './compaction.bench';
import { connectionsSection } from './connection-memory.bench';
import { consumerGroupsSection } from './consumer-groups.bench';
import { coordinatorSection } from './coordinator.bench';
import { dashboardSection } from './dashboard.bench';
import { electionSection } from './election-load.bench';
import { buildApp } from './harness/cohort-process';
import { BENCH_SCALE } from './harness/scale';
import type { BenchSection } from './harness/section';
import { largeGroupSection } from './large-group.bench';
import { logSection } from './log.bench';
import { nodeScaleSection } from './node-scale.bench';
import { operationsSection } from './operations.bench';
import { rebalanceSection } from './rebalance.bench';
import { replaySection } from './replay.bench';
import { replicationNetworkSection } from './replication-network.bench';
import { replicationSection } from './replication.bench';
import { requestChecksSection } from './request-checks.bench';
import { serverAssignorsSection } from './server-assignors.bench';
import { shareGroupsSection } from './share-groups.bench';
import { socketHotEventsSection } from './socket-hot-events.bench';

/** Every section, in the order `npm run bench` runs them: the app's, the SDK's, the operators', security, then the parts alone. */
export const SECTIONS: readonly BenchSection[] = [
  rebalanceSection,
  largeGroupSection,
  consumerGroupsSection,
  shareGroupsSection,
  commitsSection,
  replaySection,
  electionSection,
  sdkGroupSection,
  sdkOverheadSection,
  dashboardSection,
  operationsSection,
  authorizationSection,
  authenticationSection,
  compactionSection,
  nodeScaleSection,
  connectionsSection,
  coordinatorSection,
  requestChecksSection,
  logSection,
  replicationSection,
  replicationNetworkSection,
  assignorsSection,
  serverAssignorsSection,
  beforeAfterSection,
  socketHotEventsSection,
];

/** The whole run is bounded: a section that hangs stops the run instead of a machine's afternoon. */
const DEADLINE_MS = 40 * 60_000;

function list(): void {
  console.log('Sections of npm run bench (npm run bench -- <section> [args] runs one):\n');
  const width = Math.max(...SECTIONS.map((s) => s.name.length));
  for (const section of SECTIONS) {
    console.log(`  ${section.name.padEnd(width)}  ${section.summary}`);
    if (section.usage) console.log(`  ${''.padEnd(width)}  arguments: ${section.usage}`);
  }
}

/** The sections a command line asks for, and the arguments of the one named (none when several are). */
export function chosen(argv: string[]): { sections: BenchSection[]; args: string[] } {
  if (argv.length === 0) return { sections: [...SECTIONS], args: [] };
  const names = argv[0].split(',').filter((name) => name !== '');
  const unknown = names.filter((name) => !SECTIONS.some((s) => s.name === name));
  if (unknown.length > 0 || names.length === 0)
    throw new Error(`unknown section ${unknown.join(', ') || '""'}; npm run bench -- --list shows them`);
  if (names.length > 1 && argv.length > 1) throw new Error('arguments go to one section at a time');
  return { sections: names.map((name) => SECTIONS.find((s) => s.name === name)!), args: argv.slice(1) };
}

async function main(argv: string[]): Promise<void> {
  if (argv[0] === '--list' || argv[0] === '--help') return list();
  const { sections, args } = chosen(argv);
  // Not unref'd: it also keeps the process alive while a section waits only on the timers of the
  // RealClock, which are unref'd (the in-process sections run the libraries on wall-clock time).
  const deadline = setTimeout(() => {
    console.error(`\nbench: exceeded ${DEADLINE_MS / 60_000} minutes; stopping`);
    process.exit(1);
  }, DEADLINE_MS);
  console.log(
    `Cohort benchmarks (loopback, Node ${process.version}${BENCH_SCALE < 1 ? `, BENCH_SCALE=${BENCH_SCALE}` : ''})`,
  );
  if (sections.some((section) => section.needsBuild)) {
    const building = Date.now();
    buildApp();
    console.log(`built dist/ in ${((Date.now() - building) / 1000).toFixed(1)} s`);
  }
  for (const section of sections) {
    console.log(`\n== ${section.name}`);
    try {
      await section.run(args);
    } catch (error) {
      // One section failing leaves the others to run; the run then exits non-zero.
      console.log(`  not measured: ${error instanceof Error ? error.message.split('\n')[0] : String(error)}`);
      process.exitCode = 1;
    }
  }
  clearTimeout(deadline);
}

if (require.main === module)
  main(process.argv.slice(2)).then(
    () => process.exit(process.exitCode ?? 0),
    (error: unknown) => {
      console.error(error instanceof Error ? error.message : error);
      process.exit(1);
    },
  );
