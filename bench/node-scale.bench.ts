import type { Socket } from 'socket.io-client';
import { connect } from '../test/support/socket-client';
import { commitLoad, type LoadResult } from './commit.bench';
import { CohortProcess } from './harness/cohort-process';
import { fillOperatorFixture } from './harness/operator-fixture';
import { processRssBytes } from './harness/process-stats';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { median, ms, perSecond, ratio, table } from './harness/stats';

/**
 * Issue 12, target 4: the scale of one node. Two nodes run side by side: one empty, one filled with
 * `groups` simple groups × `partitionsPerGroup` committed partitions. The 100-socket OffsetCommit load
 * of the `commits` section (`LOG_FLUSH_POLICY=replicated`) then runs on each in turn, alternating for `rounds`, so
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

const rssMiB = (pid: number | undefined): number => processRssBytes(pid) / 1048576;

/** Section `node-scale`: one node holding 100,000 groups, beside an empty node under the same commit load. */
export const nodeScaleSection: BenchSection = {
  name: 'node-scale',
  summary: 'one node with 100,000 groups × 10 committed partitions: RSS, restart, OffsetCommit p99; vs an empty node',
  needsBuild: true,
  run: () => oneNodeScale(),
};

async function oneNodeScale(): Promise<void> {
  const groups = scaled(100_000, 100);
  const sockets = scaled(100, 2);
  const rounds = 3;
  console.log(
    `Scale of one node: ${groups.toLocaleString('en-US')} groups × 10 committed partitions (RSS target < 1.5 GB); OffsetCommit from ${sockets} sockets on an empty and on the full node, ${rounds} alternating rounds (p99 unchanged)`,
  );
  const result = await attempt('node scale', () => nodeScale(groups, 10, sockets, 4000, rounds));
  if (!result) return;
  const mib = (value: number): string => (Number.isFinite(value) ? `${value.toFixed(0)} MiB` : 'n/a');
  const summary = (loads: LoadResult[]) => ({
    throughput: median(loads.map((l) => l.throughput)),
    p50: median(loads.map((l) => l.p50)),
    p99: median(loads.map((l) => l.p99)),
    errors: loads.reduce((n, l) => n + l.errors, 0),
  });
  const empty = summary(result.empty);
  const full = summary(result.full);
  table(
    ['measure', 'value', 'note'],
    [
      ['RSS of the empty node', mib(result.rssEmptyMiB), 'after its commit load'],
      [
        'RSS of the full node',
        mib(result.rssFullMiB),
        `${result.committedPartitions.toLocaleString('en-US')} committed partitions, filled in ${result.fillSeconds.toFixed(1)} s`,
      ],
      ['RSS after a restart replayed them', mib(result.rssAfterRestartMiB), `ready in ${ms(result.restartReadyMs)}`],
      [
        'OffsetCommit, empty node (medians)',
        perSecond(empty.throughput),
        `p50 ${ms(empty.p50)}, p99 ${ms(empty.p99)}, errors ${empty.errors}`,
      ],
      [
        'OffsetCommit, full node (medians)',
        perSecond(full.throughput),
        `p50 ${ms(full.p50)}, p99 ${ms(full.p99)} (${ratio(full.p99, empty.p99)} the empty node's), errors ${full.errors}`,
      ],
    ],
  );
}
