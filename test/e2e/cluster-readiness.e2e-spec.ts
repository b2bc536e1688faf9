import request from 'supertest';
import { ErrorCode, partitionFor } from '@cohort/protocol';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { ClusterHarness, PARTITIONS, type RunningNode } from './cluster-harness';

jest.setTimeout(120_000);

/** A group id whose offsets partition is `partition`. */
function groupOn(partition: number): string {
  for (let i = 0; ; i++) if (partitionFor(`ready-${i}`, PARTITIONS) === partition) return `ready-${i}`;
}

/**
 * `/health/ready` in cluster mode (docs/rest.md): a node is ready only when it is registered, knows the
 * metadata (a controller elected, every partition's state) and serves every partition it leads — so a
 * load balancer never sends clients to a node that would answer COORDINATOR_NOT_AVAILABLE or
 * COORDINATOR_LOAD_IN_PROGRESS for its own groups.
 */
describe('cluster mode (e2e): readiness', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  afterAll(() => cluster.dispose());

  it('is not ready alone (no partitions exist yet), and once ready, serves every partition it leads', async () => {
    const first = await cluster.startNode(0);
    // Registered, but with one of three nodes the controller cannot create RF-3 partitions.
    const alone = await request(first.url).get('/health/ready');
    expect(alone.status).toBe(503);
    expect(alone.body).toMatchObject({ statusCode: 503, error: 'COORDINATOR_NOT_AVAILABLE' });
    expect(alone.body.message).toContain('metadata not known yet');

    for (const id of [1, 2]) await cluster.startNode(id);
    const readyAt = new Map<number, { partitions: Array<{ partition: number; leader: number | null }> }>();
    await eventually(
      async () => {
        for (const n of cluster.nodes.values()) {
          if (readyAt.has(n.nodeId) || (await request(n.url).get('/health/ready')).status !== 200) continue;
          // What the node itself shows at the moment it first says ready.
          readyAt.set(n.nodeId, { partitions: (await request(n.url).get('/v1/cluster/partitions')).body });
          await expectServesWhatItLeads(n, readyAt.get(n.nodeId)!.partitions);
        }
        return readyAt.size === 3;
      },
      'every node ready',
      60_000,
    );
    for (const { partitions } of readyAt.values()) {
      expect(partitions).toHaveLength(PARTITIONS);
      expect(partitions.every((p) => p.leader !== null)).toBe(true);
    }
  });
});

/** Every partition `node` leads answers an OffsetFetch at once (no load in progress, no NOT_COORDINATOR). */
async function expectServesWhatItLeads(
  node: RunningNode,
  partitions: Array<{ partition: number; leader: number | null }>,
): Promise<void> {
  const socket = await connect(node.url);
  try {
    for (const p of partitions.filter((x) => x.leader === node.nodeId)) {
      const fetched = await emit<{ errorCode: number }>(socket, 'OffsetFetch', {
        groupId: groupOn(p.partition),
        topics: null,
      });
      expect({ partition: p.partition, errorCode: fetched.errorCode }).toEqual({
        partition: p.partition,
        errorCode: ErrorCode.NONE,
      });
    }
  } finally {
    socket.disconnect();
  }
}
