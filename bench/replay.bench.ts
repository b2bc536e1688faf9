import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { connect, request } from '../test/support/socket-client';
import { CohortProcess } from './harness/cohort-process';
import { processCpuMs } from './harness/process-stats';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { elapsedMs, median, ms, perSecond, ratio, table } from './harness/stats';

/**
 * Issue 2, benchmark 3: replay speed on start. `groups` × `partitionsPerGroup` offset records are
 * committed through the API, the node is stopped (cleanly) and started again on the same DATA_DIR, and
 * the time until /health/ready (every partition replayed) is taken — beside the start of an empty node
 * (the fixed cost of the process) and a plain read of the same segment files (the disk's share), each
 * the median of `starts` alternating runs. The CPU time each start used until ready is taken too: on a
 * busy machine wall time mostly measures the neighbours.
 */

export interface ReplayResult {
  records: number;
  writeSeconds: number;
  logBytes: number;
  /** Starts of each kind; every time below is their median. */
  starts: number;
  emptyStartMs: number;
  fullStartMs: number;
  replayMs: number;
  rawReadMs: number;
  /** CPU (user + system) the node used from its start until ready: empty, with the records (NaN off Linux). */
  emptyStartCpuMs: number;
  fullStartCpuMs: number;
}

export async function replaySpeed(
  groups: number,
  partitionsPerGroup: number,
  sockets: number,
  starts = 3,
): Promise<ReplayResult> {
  const env = { LOG_FLUSH_POLICY: 'replicated' };
  const emptyNode = await CohortProcess.start(env);
  await emptyNode.stop();
  const node = await CohortProcess.start(env);
  const clients: Socket[] = [];
  try {
    await node.post('/v1/topics', { name: 'replay', partitions: partitionsPerGroup });
    for (let i = 0; i < sockets; i++) clients.push(await connect(node.url));
    const partitions = Array.from({ length: partitionsPerGroup }, (_, p) => ({
      partitionIndex: p,
      committedOffset: p + 1,
    }));
    const writing = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let group = next++; group < groups; group = next++) {
          const response = await request<{ errorCode: number }>(
            client,
            'OffsetCommit',
            { groupId: `replay-${group}`, generationId: -1, memberId: '', topics: [{ name: 'replay', partitions }] },
            60_000,
          );
          if (response.errorCode !== 0) throw new Error(`commit failed: ${JSON.stringify(response)}`);
        }
      }),
    );
    const writeSeconds = elapsedMs(writing) / 1000;
    clients.forEach((c) => c.disconnect());
    clients.length = 0;
    await node.stop();

    // A start takes seconds and swings by hundreds of milliseconds on a busy machine, about the size
    // of the replay itself: the starts alternate (empty, with the records, plain read) and each
    // figure is the median of `starts`.
    const segments = segmentFiles(node.dataDir);
    const runs = {
      empty: [] as number[],
      emptyCpu: [] as number[],
      full: [] as number[],
      fullCpu: [] as number[],
      raw: [] as number[],
    };
    let logBytes = 0;
    for (let round = 0; round < starts; round++) {
      runs.empty.push(await emptyNode.launch(env));
      runs.emptyCpu.push(processCpuMs(emptyNode.pid) ?? Number.NaN);
      await emptyNode.stop();

      const reading = process.hrtime.bigint();
      logBytes = 0;
      for (const file of segments) logBytes += readFileSync(file).length;
      runs.raw.push(elapsedMs(reading));

      runs.full.push(await node.launch(env));
      runs.fullCpu.push(processCpuMs(node.pid) ?? Number.NaN);
      const client = await connect(node.url);
      clients.push(client);
      const check = await request<{ topics: { partitions: { committedOffset: number }[] }[] }>(client, 'OffsetFetch', {
        groupId: `replay-${groups - 1}`,
        topics: [{ name: 'replay', partitionIndexes: [partitionsPerGroup - 1] }],
      });
      if (check.topics[0].partitions[0].committedOffset !== partitionsPerGroup)
        throw new Error('replayed offsets do not match what was committed');
      client.disconnect();
      await node.stop();
    }
    const emptyStartMs = median(runs.empty);
    const fullStartMs = median(runs.full);
    return {
      records: groups * partitionsPerGroup,
      writeSeconds,
      logBytes,
      starts,
      emptyStartMs,
      fullStartMs,
      replayMs: fullStartMs - emptyStartMs,
      rawReadMs: median(runs.raw),
      emptyStartCpuMs: median(runs.emptyCpu),
      fullStartCpuMs: median(runs.fullCpu),
    };
  } finally {
    clients.forEach((c) => c.disconnect());
    await Promise.all([node.dispose(), emptyNode.dispose()]);
  }
}

function segmentFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return segmentFiles(path);
    return name.endsWith('.log') ? [path] : [];
  });
}

/** Section `replay`: a node's start on 1,000,000 offset records, beside an empty node's start and a plain read of the files. */
export const replaySection: BenchSection = {
  name: 'replay',
  summary: "a node's start on 1,000,000 offset records; vs an empty node's start and a plain read of the segment files",
  needsBuild: true,
  run: () => replay(),
};

async function replay(): Promise<void> {
  const groups = scaled(1000, 10);
  console.log(
    `Replay on start: ${(groups * 1000).toLocaleString('en-US')} offset records (${groups} groups × 1,000 partitions)`,
  );
  const result = await attempt('replay', () => replaySpeed(groups, 1000, 20));
  if (!result) return;
  table(
    ['measure', 'value', 'note'],
    [
      [
        'records written through OffsetCommit',
        result.records.toLocaleString('en-US'),
        `${result.writeSeconds.toFixed(1)} s (${perSecond(result.records / result.writeSeconds)})`,
      ],
      ['log size', `${(result.logBytes / 1048576).toFixed(1)} MiB`, ''],
      [
        'start of an empty node → ready',
        ms(result.emptyStartMs),
        `baseline: process + Nest bootstrap (each start: the median of ${result.starts}, alternating)`,
      ],
      ['start with the records → ready', ms(result.fullStartMs), 'after a clean stop'],
      ['replay (difference)', ms(result.replayMs), `${perSecond(result.records / (result.replayMs / 1000))} records`],
      [
        'CPU of the starts until ready',
        `${ms(result.fullStartCpuMs)} / ${ms(result.emptyStartCpuMs)}`,
        `with the records / empty: replay used ${ms(result.fullStartCpuMs - result.emptyStartCpuMs)} of CPU`,
      ],
      [
        'plain read of the segment files',
        ms(result.rawReadMs),
        `replay is ${ratio(result.replayMs, result.rawReadMs)} the raw read`,
      ],
    ],
  );
}
