import { readFileSync } from 'node:fs';
import type { Socket } from 'socket.io-client';
import { connect } from '../test/support/socket-client';
import { commitLoad, type LoadResult } from './commit.bench';
import { CohortProcess } from './harness/cohort-process';
import { fillOperatorFixture } from './harness/operator-fixture';

/**
 * Issue 12, target 4: the scale of one node. Two nodes run side by side: one empty, one filled with
 * `groups` simple groups × `partitionsPerGroup` committed partitions. The 100-socket OffsetCommit load
 * of section 2 (`LOG_FLUSH_POLICY=replicated`) then runs on each in turn, alternating for `rounds`, so
 * the full node's p99 beside the empty node's (medians) is the cost of the size, not of the machine's
 * moment. Resident memory is read from /proc: empty, full, and after the full node restarted and
 * replayed it all (the loader's way of holding the same state).
 */
export interface NodeScaleResult {
  groups: number;
  committedPartitions: number;
  fillSeconds: number;
  rssEmptyMiB: number;
  rssFullMiB: number;
  restartReadyMs: number;
  rssAfterRestartMiB: number;
  empty: LoadResult[];
  full: LoadResult[];
}

export async function nodeScale(
  groups: number,
  partitionsPerGroup: number,
  sockets: number,
  durationMs: number,
  rounds: number,
): Promise<NodeScaleResult> {
  const env = { LOG_FLUSH_POLICY: 'replicated' };
  const emptyNode = await CohortProcess.start(env);
  const fullNode = await CohortProcess.start(env);
  const clients = new Map<CohortProcess, Socket[]>();
  const connectAll = async (node: CohortProcess): Promise<Socket[]> => {
    const list: Socket[] = [];
    clients.set(node, list);
    for (let i = 0; i < sockets; i++) list.push(await connect(node.url, { clientId: `bench-${i}` }));
    return list;
  };
  try {
    const fill = await fillOperatorFixture(fullNode, groups, partitionsPerGroup, 32);
    const rssFullMiB = rssMiB(fullNode.pid);
    for (const node of [emptyNode, fullNode]) {
      await node.post('/v1/topics', { name: 'commits', partitions: sockets });
      await connectAll(node);
    }
    const empty: LoadResult[] = [];
    const full: LoadResult[] = [];
    for (let round = 0; round < rounds; round++) {
      empty.push(await commitLoad(clients.get(emptyNode)!, durationMs, [emptyNode]));
      full.push(await commitLoad(clients.get(fullNode)!, durationMs, [fullNode]));
    }
    const rssEmptyMiB = rssMiB(emptyNode.pid);
    for (const list of clients.values()) list.forEach((c) => c.disconnect());
    clients.clear();

    await fullNode.stop();
    const restartReadyMs = await fullNode.launch(env);
    const rssAfterRestartMiB = rssMiB(fullNode.pid);
    return {
      groups,
      committedPartitions: groups * partitionsPerGroup,
      fillSeconds: fill.fillMs / 1000,
      rssEmptyMiB,
      rssFullMiB,
      restartReadyMs,
      rssAfterRestartMiB,
      empty,
      full,
    };
  } finally {
    for (const list of clients.values()) list.forEach((c) => c.disconnect());
    await emptyNode.dispose();
    await fullNode.dispose();
  }
}

/** Resident set size of a process in MiB, from /proc (Linux; NaN elsewhere). */
function rssMiB(pid: number | undefined): number {
  try {
    const line = readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('VmRSS:'));
    return line ? Number(line.split(/\s+/)[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}
