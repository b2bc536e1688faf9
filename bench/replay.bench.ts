import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Socket } from 'socket.io-client';
import { connect, request } from '../test/support/socket-client';
import { CohortProcess } from './harness/cohort-process';
import { processCpuMs } from './harness/process-cpu';
import { elapsedMs } from './harness/stats';

/**
 * Issue 2, benchmark 3: replay speed on start. `groups` × `partitionsPerGroup` offset records are
 * committed through the API, the node is stopped and started again on the same DATA_DIR, and the time
 * until /health/ready (every partition replayed) is taken — beside the start of an empty node (the fixed
 * cost of the process) and a plain read of the same segment files (the disk's share). The CPU time each
 * start used until ready is taken too: on a busy machine wall time mostly measures the neighbours.
 */

export interface ReplayResult {
  records: number;
  writeSeconds: number;
  logBytes: number;
  emptyStartMs: number;
  fullStartMs: number;
  replayMs: number;
  rawReadMs: number;
  /** CPU (user + system) the node used from its start until ready: empty, with the records (NaN off Linux). */
  emptyStartCpuMs: number;
  fullStartCpuMs: number;
}

export async function replaySpeed(groups: number, partitionsPerGroup: number, sockets: number): Promise<ReplayResult> {
  const emptyNode = await CohortProcess.start({});
  await emptyNode.stop();
  const emptyStartMs = await emptyNode.launch({});
  const emptyStartCpuMs = processCpuMs(emptyNode.pid) ?? Number.NaN;
  await emptyNode.dispose();

  const env = { LOG_FLUSH_POLICY: 'replicated' };
  const node = await CohortProcess.start(env);
  const clients: Socket[] = [];
  try {
    await node.post('/v1/topics', { name: 'replay', partitions: partitionsPerGroup });
    for (let i = 0; i < sockets; i++) clients.push(await connect(node.url));
    const partitions = Array.from({ length: partitionsPerGroup }, (_, p) => ({ partitionIndex: p, committedOffset: p + 1 }));
    const writing = process.hrtime.bigint();
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let group = next++; group < groups; group = next++) {
          const response = await request<{ errorCode: number }>(client, 'OffsetCommit', { groupId: `replay-${group}`, generationId: -1, memberId: '', topics: [{ name: 'replay', partitions }] }, 60_000);
          if (response.errorCode !== 0) throw new Error(`commit failed: ${JSON.stringify(response)}`);
        }
      }),
    );
    const writeSeconds = elapsedMs(writing) / 1000;
    clients.forEach((c) => c.disconnect());
    await node.stop();

    const segments = segmentFiles(node.dataDir);
    const reading = process.hrtime.bigint();
    let logBytes = 0;
    for (const file of segments) logBytes += readFileSync(file).length;
    const rawReadMs = elapsedMs(reading);

    const fullStartMs = await node.launch(env);
    const fullStartCpuMs = processCpuMs(node.pid) ?? Number.NaN;
    const check = await request<{ topics: { partitions: { committedOffset: number }[] }[] }>(
      (clients[0] = await connect(node.url)),
      'OffsetFetch',
      { groupId: `replay-${groups - 1}`, topics: [{ name: 'replay', partitionIndexes: [partitionsPerGroup - 1] }] },
    );
    if (check.topics[0].partitions[0].committedOffset !== partitionsPerGroup) throw new Error('replayed offsets do not match what was committed');
    return { records: groups * partitionsPerGroup, writeSeconds, logBytes, emptyStartMs, fullStartMs, replayMs: fullStartMs - emptyStartMs, rawReadMs, emptyStartCpuMs, fullStartCpuMs };
  } finally {
    clients.forEach((c) => c.disconnect());
    await node.dispose();
  }
}

function segmentFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return segmentFiles(path);
    return name.endsWith('.log') ? [path] : [];
  });
}
