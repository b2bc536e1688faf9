import type { Socket } from 'socket.io-client';
import { connect, request } from '../../test/support/socket-client';
import type { CohortProcess } from './cohort-process';

/** The size operators' tools are measured at (issue 10): 10,000 groups, 100,000 committed partitions. */
export const OPERATOR_FIXTURE_GROUPS = 10_000;
export const OPERATOR_FIXTURE_PARTITIONS_PER_GROUP = 10;

export interface OperatorFixture {
  groups: number;
  partitionsPerGroup: number;
  topic: string;
  /** The id of the i-th group (0-based), `ops-00042`. */
  groupId(index: number): string;
  /** How long filling the node took, for the printout. */
  fillMs: number;
}

/**
 * Fills a node with `groups` Empty groups, each with committed offsets on every partition of one topic
 * whose end offsets are reported (so every group has lag, and each status is evaluated): the fixture
 * of the dashboard, `/lag` and metrics benchmarks. Offsets are committed as a simple commit
 * (generation -1, no member), which creates the group as Kafka's OffsetCommit does.
 */
export async function fillOperatorFixture(
  node: CohortProcess,
  groups = OPERATOR_FIXTURE_GROUPS,
  partitionsPerGroup = OPERATOR_FIXTURE_PARTITIONS_PER_GROUP,
  sockets = 16,
): Promise<OperatorFixture> {
  const started = Date.now();
  const topic = 'ops-orders';
  const width = String(groups - 1).length;
  const groupId = (index: number): string => `ops-${String(index).padStart(width, '0')}`;
  await node.post('/v1/topics', { name: topic, partitions: partitionsPerGroup });
  const endOffset = (partition: number): number => 100_000 + partition * 1000;
  await node.post(
    `/v1/topics/${topic}/end-offsets`,
    {
      partitions: Array.from({ length: partitionsPerGroup }, (_, partition) => ({
        partition,
        endOffset: endOffset(partition),
      })),
    },
    'PUT',
  );
  const clients: Socket[] = [];
  try {
    for (let i = 0; i < sockets; i++) clients.push(await connect(node.url));
    let next = 0;
    await Promise.all(
      clients.map(async (client) => {
        for (let index = next++; index < groups; index = next++) {
          // Lag differs by group (0 to ~10,000), so the pages do not show one repeated row.
          const partitions = Array.from({ length: partitionsPerGroup }, (_, partition) => ({
            partitionIndex: partition,
            committedOffset: endOffset(partition) - ((index * 37 + partition * 101) % 10_000),
          }));
          const response = await request<{ errorCode: number; topics: { partitions: { errorCode: number }[] }[] }>(
            client,
            'OffsetCommit',
            { groupId: groupId(index), generationId: -1, memberId: '', topics: [{ name: topic, partitions }] },
            60_000,
          );
          const failed =
            response.errorCode !== 0 || response.topics.some((t) => t.partitions.some((p) => p.errorCode !== 0));
          if (failed) throw new Error(`fixture commit of ${groupId(index)} failed: ${JSON.stringify(response)}`);
        }
      }),
    );
  } finally {
    clients.forEach((client) => client.disconnect());
  }
  return { groups, partitionsPerGroup, topic, groupId, fillMs: Date.now() - started };
}
