/**
 * Issue 12, target 2b: a node's time from election to serving a partition of 100,000 offset records,
 * in-process. One `__consumer_offsets` partition is filled with `groups` × `partitionsPerGroup` offset
 * commits (one batch per group, as one OffsetCommit writes them) on the embedded file log, closed and
 * opened again; the log being open and recovered is where a follower's replica already is when it is
 * elected, so the clock starts at the election (the coordinator told it leads the partition) and stops
 * when an OffsetFetch of the last group answers with its offset. The baseline in the same run: the plain
 * read of the partition's records through the store, replaying none (what any load must at least do).
 */
import { coordinatorConfig, GroupCoordinator, InMemoryTopicRegistry, StaticAssignorLookup } from '@cohort/coordinator';
import { offsetCommitRecord } from '@cohort/coordinator/records/record-builders';
import { RecordingPushSink } from '@cohort/coordinator/testing/recording-push-sink';
import { LocalPartitionStore, RealClock } from '@cohort/replication';
import { makeTempDir, removeDir } from '@cohort/replication/testing';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { elapsedMs, median, ms, ratio, table } from './harness/stats';

export interface ElectionLoadResult {
  records: number;
  /** Median over the rounds: election → OffsetFetch answered from the loaded partition. */
  electionToServingMs: number;
  /** Median over the rounds: CPU time (user + system, every thread) the process spent meanwhile. */
  electionToServingCpuMs: number;
  /** Median over the rounds: reading every record of the partition through the store, replaying none (the log's share). */
  plainReadMs: number;
  rounds: number[];
}

const TOPIC = 'orders';

export async function electionToServing(
  groups: number,
  partitionsPerGroup: number,
  rounds: number,
): Promise<ElectionLoadResult> {
  const dataDir = makeTempDir();
  const clock = new RealClock();
  try {
    const writer = await LocalPartitionStore.open({
      dataDir,
      clock,
      numPartitions: 1,
      flushPolicy: 'replicated',
      cleaner: false,
    });
    for (let g = 0; g < groups; g++) {
      const records = Array.from({ length: partitionsPerGroup }, (_, p) =>
        offsetCommitRecord(`election-${g}`, TOPIC, p, {
          offset: g * 10 + p,
          leaderEpoch: 1,
          metadata: '',
          commitTimestamp: 1_764_600_000_000 + g,
          expireTimestamp: null,
        }),
      );
      writer.append(0, writer.leaderEpoch, records);
    }
    await writer.close();

    const samples: number[] = [];
    const cpu: number[] = [];
    const reads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const store = await LocalPartitionStore.open({
        dataDir,
        clock,
        numPartitions: 1,
        flushPolicy: 'replicated',
        cleaner: false,
      });
      reads.push(await plainRead(store));
      const config = coordinatorConfig({ numPartitions: 1, groupInitialRebalanceDelayMs: 0 });
      const topics = new InMemoryTopicRegistry({
        topics: [{ name: TOPIC, partitions: partitionsPerGroup, endOffsets: {} }],
      });
      const coordinator = new GroupCoordinator({
        store,
        clock,
        config,
        topics,
        assignors: new StaticAssignorLookup(),
        push: new RecordingPushSink(),
      });
      const elected = process.hrtime.bigint();
      const cpuBefore = process.cpuUsage();
      coordinator.start();
      const lastGroup = `election-${groups - 1}`;
      for (;;) {
        const fetched = await coordinator.offsetFetch({
          groupId: lastGroup,
          topics: [{ name: TOPIC, partitionIndexes: [partitionsPerGroup - 1] }],
        });
        if (fetched.errorCode === 0) {
          if (fetched.topics[0].partitions[0].committedOffset !== (groups - 1) * 10 + partitionsPerGroup - 1)
            throw new Error('loaded offset does not match what was written');
          break;
        }
        await new Promise((resolve) => setImmediate(resolve));
      }
      samples.push(elapsedMs(elected));
      const used = process.cpuUsage(cpuBefore);
      cpu.push((used.user + used.system) / 1000);
      coordinator.close();
      await store.close();
    }
    return {
      records: groups * partitionsPerGroup,
      electionToServingMs: median(samples),
      electionToServingCpuMs: median(cpu),
      plainReadMs: median(reads),
      rounds: samples,
    };
  } finally {
    removeDir(dataDir);
  }
}

async function plainRead(store: LocalPartitionStore): Promise<number> {
  const started = process.hrtime.bigint();
  const { logEndOffset } = store.offsets(0);
  for (let next = 0; next < logEndOffset;) next = (await store.read(0, next, logEndOffset, 1000)).nextOffset;
  return elapsedMs(started);
}

/** Section `election`: from a partition's election to serving it, beside a plain read of its records. */
export const electionSection: BenchSection = {
  name: 'election',
  summary: 'election → serving one partition of 100,000 offset records, in process; vs a plain read of its records',
  needsBuild: false,
  run: () => electionToServingSection(),
};

async function electionToServingSection(): Promise<void> {
  const groupsElected = scaled(100, 1);
  console.log(
    `Election → serving one partition of ${(groupsElected * 1000).toLocaleString('en-US')} offset records (in-process, log already open as a follower's is; target < 100 ms)`,
  );
  const election = await attempt('election to serving', () => electionToServing(groupsElected, 1000, 5));
  if (!election) return;
  table(
    ['measure', 'value', 'note'],
    [
      [
        'election → OffsetFetch answered (first round)',
        ms(election.rounds[0]),
        "the loader's code not yet optimised by the JIT",
      ],
      [
        'election → OffsetFetch answered (median of 5)',
        ms(election.electionToServingMs),
        `CPU ${ms(election.electionToServingCpuMs)}`,
      ],
      [
        'plain read of its records through the store',
        ms(election.plainReadMs),
        `load is ${ratio(election.electionToServingMs, election.plainReadMs)} the plain read`,
      ],
    ],
  );
}
