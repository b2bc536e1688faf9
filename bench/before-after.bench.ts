/**
 * Before and after in one run: the request path, replay and the 10,000-member group on nodes of two
 * builds, alternating build by build within each round, so both see the same machine at the same time.
 *
 *   git worktree add --detach ../baseline <commit> && (cd ../baseline && npm ci && npm run build)
 *   npm run bench -- before-after ../baseline
 *
 * Section `before-after` of `npm run bench`; without a baseline checkout (as when every section runs)
 * it measures nothing and says so. This checkout's dist/ is built first, as for every node section. Each figure is printed for both
 * builds with the ratio after / before; Redis HSET from the same harness is measured in every round
 * as the machine's yardstick. BENCH_AB_ROUNDS (default 2) sets the rounds of the commit, cluster and
 * replay rows, BENCH_AB_LARGE_ROUNDS (default 1, 0 skips them) those of the large group, and
 * BENCH_SCALE shrinks the sizes as in `npm run bench`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { clusterCommits, cohortCommits, cohortHeartbeats, type LoadResult, redisHsets } from './commit.bench';
import { CohortProcess } from './harness/cohort-process';
import { scaled } from './harness/scale';
import type { BenchSection } from './harness/section';
import { ms, perSecond, ratio, table } from './harness/stats';
import { largeGroupNodeEnv, memberJoinsLargeGroup } from './large-group.bench';
import { replaySpeed } from './replay.bench';

export const beforeAfterSection: BenchSection = {
  name: 'before-after',
  summary:
    'commits, cluster, replay and the large group on an older build and this one, alternating (needs the older checkout)',
  usage: '<baseline checkout, built: dist/src/main.js>',
  needsBuild: true,
  run: (args) => beforeAfter(args),
};

const rounds = Math.max(1, Number(process.env.BENCH_AB_ROUNDS ?? '2'));
const largeRounds = Math.max(0, Number(process.env.BENCH_AB_LARGE_ROUNDS ?? '1'));
const sockets = scaled(100, 2);
const seconds = 5;

type Build = 'before' | 'after';
/** Every sample of one row, per build; a row's figure is the median of its samples. */
type Samples = Record<Build, number[]>;

const rows = new Map<string, { unit: 'rate' | 'ms'; samples: Samples }>();

/** The median, the mean of the middle two for an even count: with two rounds, both count. */
function middle(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

function record(row: string, unit: 'rate' | 'ms', build: Build, value: number | undefined): void {
  const entry = rows.get(row) ?? { unit, samples: { before: [], after: [] } };
  rows.set(row, entry);
  if (value !== undefined && Number.isFinite(value)) entry.samples[build].push(value);
}

/** Runs one measurement on `build`'s nodes; a failure is printed and leaves that sample out. */
async function on<T>(build: Build, baseline: string, what: string, run: () => Promise<T>): Promise<T | null> {
  if (build === 'before') process.env.BENCH_DIST = baseline;
  else delete process.env.BENCH_DIST;
  try {
    return await run();
  } catch (error) {
    console.log(
      `  ${what} (${build}): not measured (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
    );
    return null;
  } finally {
    delete process.env.BENCH_DIST;
  }
}

function load(prefix: string, build: Build, result: LoadResult | null): void {
  record(`${prefix}: throughput`, 'rate', build, result?.throughput);
  record(`${prefix}: p99`, 'ms', build, result?.p99);
  const cpu = result?.serverCores == null ? undefined : (result.serverCores * 1000) / result.throughput;
  record(`${prefix}: server CPU per request`, 'ms', build, cpu);
}

async function round(index: number, baseline: string): Promise<void> {
  // Alternate which build goes first, so neither always runs on the colder (or warmer) machine.
  const order: Build[] = index % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  console.log(`round ${index + 1} of ${rounds}: ${order.join(', then ')}`);
  const redis = await on('after', baseline, 'Redis HSET', () => redisHsets(sockets, seconds * 1000));
  for (const build of order)
    record('Redis HSET (the yardstick, same harness): throughput', 'rate', build, redis?.throughput);
  for (const build of order) {
    load(
      'OffsetCommit, embedded, LOG_FLUSH_POLICY=always',
      build,
      await on(build, baseline, 'always', () => cohortCommits('always', sockets, seconds * 1000)),
    );
    load(
      'OffsetCommit, embedded, LOG_FLUSH_POLICY=replicated',
      build,
      await on(build, baseline, 'replicated', () => cohortCommits('replicated', sockets, seconds * 1000)),
    );
    load(
      'Heartbeat, embedded',
      build,
      await on(build, baseline, 'heartbeat', () => cohortHeartbeats(sockets, seconds * 1000)),
    );
    load(
      'OffsetCommit, 3-node cluster (summed CPU)',
      build,
      await on(build, baseline, 'cluster', () => clusterCommits(3, sockets, seconds * 1000)),
    );
    const groups = scaled(1000, 10);
    const replay = await on(build, baseline, 'replay', () => replaySpeed(groups, 1000, 20));
    record(
      `Replay of ${(groups * 1000).toLocaleString('en-US')} offset records (start with them - empty start)`,
      'ms',
      build,
      replay?.replayMs,
    );
    record('Replay: CPU of the start with the records', 'ms', build, replay?.fullStartCpuMs);
  }
}

async function largeGroup(index: number, baseline: string): Promise<void> {
  const size = scaled(10_000, 10);
  const order: Build[] = index % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  console.log(`large group, round ${index + 1} of ${largeRounds}: ${order.join(', then ')}`);
  for (const build of order) {
    for (const assignor of [null, 'range'] as const) {
      const who = assignor === null ? 'leader assigns' : 'server assigns';
      const result = await on(build, baseline, `${size} members, ${who}`, async () => {
        const node = await CohortProcess.start({
          ...largeGroupNodeEnv(size),
          GROUP_INITIAL_REBALANCE_DELAY_MS: '3000',
        });
        try {
          return await memberJoinsLargeGroup(node, size, assignor);
        } finally {
          await node.dispose();
        }
      });
      record(`${size} members form, ${who}: after the join phase`, 'ms', build, result?.formAfterJoinPhaseMs);
      record(`${size} members + 1 joins, ${who}: until all synced`, 'ms', build, result?.joinMs);
      record(`${size} members + 1 joins, ${who}: node CPU`, 'ms', build, result?.nodeJoinCpuMs);
    }
  }
}

async function beforeAfter(args: string[]): Promise<void> {
  if (args[0] === undefined) {
    console.log('  not measured: no baseline checkout given (npm run bench -- before-after <checkout>)');
    return;
  }
  const baseline = resolve(args[0]);
  if (!existsSync(resolve(baseline, 'dist', 'src', 'main.js')))
    throw new Error(`${baseline} has no dist/src/main.js: build it there first (npm run build)`);
  console.log(`Before (${baseline}) and after (this checkout), alternating`);
  for (let i = 0; i < rounds; i++) await round(i, baseline);
  for (let i = 0; i < largeRounds; i++) await largeGroup(i, baseline);
  const figure = (unit: 'rate' | 'ms', values: number[]) =>
    values.length === 0 ? 'n/a' : unit === 'rate' ? perSecond(middle(values)) : ms(middle(values));
  const all = (unit: 'rate' | 'ms', values: number[]) =>
    values.map((v) => (unit === 'rate' ? perSecond(v) : ms(v))).join(', ');
  console.log('');
  table(
    ['measure (median of the rounds)', 'before', 'after', 'after / before', 'every sample: before | after'],
    [...rows].map(([row, { unit, samples }]) => [
      row,
      figure(unit, samples.before),
      figure(unit, samples.after),
      ratio(middle(samples.after), middle(samples.before)),
      `${all(unit, samples.before)} | ${all(unit, samples.after)}`,
    ]),
  );
}
