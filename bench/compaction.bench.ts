/**
 * Section `compaction` of `npm run bench`: does compaction keep a busy
 * embedded node's log — and so its time to ready — bounded? One simulated hour of offset commits on
 * virtual time (100 commits/s over 2,000 group/partition keys, 5 offsets partitions, `LOG_FLUSH_POLICY=replicated`), the node
 * restarted every 10 simulated seconds — more often than the cleaner's 15 s interval, as in a crash
 * loop under load. Every 5 simulated minutes the node is opened for real and timed until the group
 * coordinator serves every partition (what `/health/ready` waits for), with the log size on disk.
 * Baseline in the same run: the same hour with the cleaner off. Shorter with BENCH_SCALE=0.1 (6 minutes).
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { coordinatorConfig, GroupCoordinator, InMemoryTopicRegistry, StaticAssignorLookup } from '@cohort/coordinator';
import { offsetCommitRecord } from '@cohort/coordinator/records/record-builders';
import { RecordingPushSink } from '@cohort/coordinator/testing';
import { LocalPartitionStore, ManualClock } from '@cohort/replication';
import { makeTempDir, removeDir } from '@cohort/replication/testing';
import { scaled } from './harness/scale';
import { type BenchSection } from './harness/section';
import { elapsedMs, ms, ratio, table } from './harness/stats';

/** The simulated time: an hour at BENCH_SCALE=1, at least one restart period at any scale. */
const SECONDS = scaled(3600, 10);
const NUM_PARTITIONS = 5;
const COMMITS_PER_SECOND = 100;
const GROUPS = 500;
const PARTITIONS_PER_GROUP = 4;
const RESTART_EVERY_S = 10;
const SAMPLE_EVERY_S = 300;

export interface CompactionSample {
  minute: number;
  logBytes: number;
  readyMs: number;
}

function logBytes(dataDir: string): number {
  let total = 0;
  for (const dir of readdirSync(dataDir).filter((d) => d.startsWith('__consumer_offsets-'))) {
    for (const f of readdirSync(join(dataDir, dir)))
      if (f.endsWith('.log')) total += statSync(join(dataDir, dir, f)).size;
  }
  return total;
}

const open = (dataDir: string, clock: ManualClock, cleaner: boolean) =>
  LocalPartitionStore.open({
    dataDir,
    clock,
    numPartitions: NUM_PARTITIONS,
    flushPolicy: 'replicated',
    cleaner: cleaner ? {} : false,
  });

/** Opens the node's log as a start does and times it until the coordinator serves every partition. */
async function timeToReady(dataDir: string, clock: ManualClock, cleaner: boolean): Promise<number> {
  const started = process.hrtime.bigint();
  const store = await open(dataDir, clock, cleaner);
  const config = coordinatorConfig({ numPartitions: NUM_PARTITIONS, groupInitialRebalanceDelayMs: 0 });
  const topics = new InMemoryTopicRegistry({
    topics: [{ name: 'orders', partitions: PARTITIONS_PER_GROUP, endOffsets: {} }],
  });
  const coordinator = new GroupCoordinator({
    store,
    clock,
    config,
    topics,
    assignors: new StaticAssignorLookup(),
    push: new RecordingPushSink(),
  });
  coordinator.start();
  while (coordinator.servingPartitions().length < NUM_PARTITIONS) await new Promise((resolve) => setImmediate(resolve));
  const took = elapsedMs(started);
  coordinator.close();
  await store.close();
  return took;
}

/** One simulated hour (scaled) of commits with restarts; returns the samples. */
export async function compactionHour(cleaner: boolean): Promise<CompactionSample[]> {
  const dataDir = makeTempDir('cohort-compaction-bench-');
  const clock = new ManualClock();
  const samples: CompactionSample[] = [];
  const seconds = SECONDS;
  let commit = 0;
  try {
    for (let second = 0; second < seconds; second += RESTART_EVERY_S) {
      if (second % SAMPLE_EVERY_S === 0)
        samples.push({
          minute: second / 60,
          logBytes: logBytes(dataDir),
          readyMs: await timeToReady(dataDir, clock, cleaner),
        });
      const store = await open(dataDir, clock, cleaner);
      const partitionOf = (group: number) => group % NUM_PARTITIONS;
      for (let s = 0; s < RESTART_EVERY_S; s++) {
        const waits: Promise<void>[] = [];
        for (let i = 0; i < COMMITS_PER_SECOND; i++, commit++) {
          const group = commit % GROUPS;
          const record = offsetCommitRecord(
            `group-${group}`,
            'orders',
            Math.floor(commit / GROUPS) % PARTITIONS_PER_GROUP,
            {
              offset: commit,
              leaderEpoch: -1,
              metadata: '',
              commitTimestamp: clock.now(),
              expireTimestamp: null,
            },
          );
          const { lastOffset } = store.append(partitionOf(group), store.leaderEpoch, [record]);
          waits.push(store.awaitCommit(partitionOf(group), store.leaderEpoch, lastOffset, 60_000));
        }
        await Promise.all(waits);
        clock.advance(1_000); // the cleaner runs on this clock: its first pass at start, then every 15 s
        await new Promise((resolve) => setImmediate(resolve));
      }
      await store.close(); // waits for a compaction in progress
    }
    samples.push({
      minute: seconds / 60,
      logBytes: logBytes(dataDir),
      readyMs: await timeToReady(dataDir, clock, cleaner),
    });
    return samples;
  } finally {
    removeDir(dataDir);
  }
}

export const compactionSection: BenchSection = {
  name: 'compaction',
  summary: "an embedded node's log size and time to ready through a simulated hour of commits; vs the cleaner off",
  needsBuild: false,
  run: () => printCompaction(),
};

async function printCompaction(): Promise<void> {
  console.log(
    `Compaction over ${(SECONDS / 60).toFixed(1)} simulated minutes of commits (${COMMITS_PER_SECOND}/s, ${GROUPS * PARTITIONS_PER_GROUP} keys), restarted every ${RESTART_EVERY_S} s (baseline: the cleaner off)`,
  );
  const compacted = await compactionHour(true);
  const baseline = await compactionHour(false);
  const mb = (b: number) => `${(b / 1e6).toFixed(1)} MB`;
  table(
    [
      'simulated minute',
      'log, compacted',
      'log, no cleaner',
      'size vs baseline',
      'ready, compacted',
      'ready, no cleaner',
      'ready vs baseline',
    ],
    compacted.map((c, i) => {
      const b = baseline[i];
      return [
        String(c.minute),
        mb(c.logBytes),
        mb(b.logBytes),
        ratio(c.logBytes, b.logBytes),
        ms(c.readyMs),
        ms(b.readyMs),
        ratio(c.readyMs, b.readyMs),
      ];
    }),
  );
}
