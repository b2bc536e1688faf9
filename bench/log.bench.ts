/**
 * Section `log` of `npm run bench`: the segment log. Prints absolute figures and, as the house rules
 * ask, ratios against a baseline measured in the same run:
 *   1. LocalPartitionStore appends/s and awaitCommit latency, LOG_FLUSH_POLICY=always vs replicated;
 *   2. group commit: concurrent appenders sharing fsyncs vs one fsync per append;
 *   3. opening and reading back a log of 1,000,000 records (what coordinator replay sits on; BENCH_SCALE shrinks it).
 * Bounded (well under a minute), in a temp dir that is removed at the end.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileLog, LocalPartitionStore, RealClock, type LogFlushPolicy } from '@cohort/replication';
import { scaled } from './harness/scale';
import type { BenchSection } from './harness/section';
import { percentile } from './harness/stats';

export const logSection: BenchSection = {
  name: 'log',
  summary:
    'the segment log: LOG_FLUSH_POLICY always vs replicated, group commit vs an fsync each, open + read of 1M records',
  needsBuild: false,
  run: () => logBench(),
};

/** The section's temp dir, removed at its end. */
let root = '';
let dirs = 0;
const freshDir = () => path.join(root, `run-${dirs++}`);

function record(i: number) {
  return {
    key: Buffer.from(`group-${i % 500}/topic-${i % 7}/${i % 12}`),
    value: Buffer.from(`{"offset":${i},"metadata":""}`),
    timestamp: 1_700_000_000_000 + i,
  };
}

const fmt = (n: number, digits = 0) =>
  n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

/** `clients` loops, each appending one record and awaiting its commit, for `durationMs`. */
async function storeRun(flushPolicy: LogFlushPolicy, clients: number, durationMs: number) {
  const store = await LocalPartitionStore.open({
    dataDir: freshDir(),
    clock: new RealClock(),
    numPartitions: 4,
    flushPolicy,
    cleaner: false,
  });
  const latencies: number[] = [];
  const end = performance.now() + durationMs;
  let i = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < end) {
        const partition = c % 4;
        const t0 = performance.now();
        const { lastOffset } = store.append(partition, store.leaderEpoch, [record(i++)]);
        await store.awaitCommit(partition, store.leaderEpoch, lastOffset, 30_000);
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = performance.now() - start;
  await store.close();
  latencies.sort((a, b) => a - b);
  return {
    perSecond: (latencies.length / elapsed) * 1000,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
}

/** `appenders` concurrent loops of append + flush on one FileLog, for `durationMs`. */
async function flushRun(appenders: number, durationMs: number) {
  const log = await FileLog.open(freshDir());
  const end = performance.now() + durationMs;
  let appended = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: appenders }, async () => {
      while (performance.now() < end) {
        log.appendAsLeader([record(appended++)], 0);
        await log.flush();
      }
    }),
  );
  const elapsed = performance.now() - start;
  await log.close();
  return (appended / elapsed) * 1000;
}

async function openAndReadRun(records: number) {
  const dir = freshDir();
  const writer = await FileLog.open(dir);
  const t0 = performance.now();
  for (let i = 0; i < records; i++) {
    writer.appendAsLeader([record(i)], 0);
    if (i % 20_000 === 0) await new Promise((r) => setImmediate(r));
  }
  await writer.flush();
  const writeMs = performance.now() - t0;
  const bytes = writer.sizeInBytes;
  await writer.close();

  const t1 = performance.now();
  const log = await FileLog.open(dir);
  const openMs = performance.now() - t1;
  const t2 = performance.now();
  let next = 0;
  let seen = 0;
  while (next < log.logEndOffset) {
    const batches = log.read(next, log.logEndOffset, 5_000);
    for (const b of batches) seen += b.records.length;
    const last = batches[batches.length - 1].records;
    next = last[last.length - 1].offset + 1;
  }
  const readMs = performance.now() - t2;
  if (seen !== records) throw new Error(`read back ${seen} records, wrote ${records}`);
  await log.close();
  return { writeMs, openMs, readMs, bytes };
}

async function logBench(): Promise<void> {
  root = mkdtempSync(path.join(tmpdir(), 'cohort-log-bench-'));
  try {
    await logFigures();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

async function logFigures(): Promise<void> {
  console.log(`The segment log, in ${root}\n`);

  console.log('1. LocalPartitionStore: 32 clients, each append 1 record + awaitCommit, 4 s per policy');
  const always = await storeRun('always', 32, 4_000);
  const replicated = await storeRun('replicated', 32, 4_000);
  for (const [name, r] of [
    ['always', always],
    ['replicated', replicated],
  ] as const) {
    console.log(
      `   ${name.padEnd(10)} ${fmt(r.perSecond).padStart(8)} commits/s   awaitCommit p50 ${fmt(r.p50, 2)} ms   p99 ${fmt(r.p99, 2)} ms`,
    );
  }
  console.log(
    `   replicated / always: throughput x${fmt(replicated.perSecond / always.perSecond, 1)}, p50 latency x${fmt(replicated.p50 / always.p50, 2)}\n`,
  );

  console.log('2. Group commit on one FileLog: append + flush, 3 s each');
  const serial = await flushRun(1, 3_000);
  const grouped = await flushRun(64, 3_000);
  console.log(`   1 appender (one fsync per append)     ${fmt(serial).padStart(8)} appends/s`);
  console.log(`   64 concurrent appenders (group commit) ${fmt(grouped).padStart(8)} appends/s`);
  console.log(`   group commit / one fsync each: x${fmt(grouped / serial, 1)}\n`);

  const n = scaled(1_000_000, 10_000);
  console.log(`3. A log of ${fmt(n)} single-record batches`);
  const big = await openAndReadRun(n);
  console.log(
    `   write + flush ${fmt(big.writeMs)} ms (${fmt(big.bytes / 1e6, 1)} MB), open (recovery scan, CRC of every batch) ${fmt(big.openMs)} ms, read all ${fmt(big.readMs)} ms`,
  );
  console.log(`   open + read: ${fmt((big.openMs + big.readMs) / 1000, 2)} s for ${fmt(n)} records\n`);
}
