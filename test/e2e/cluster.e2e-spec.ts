import request from 'supertest';
import { ErrorCode, partitionFor } from '@cohort/protocol';
import { eventually } from '../support/group-member';
import { request as emit } from '../support/socket-client';
import {
  ClusterHarness,
  PARTITIONS,
  commitErrors,
  commitRequest,
  committedOffsets,
  type RunningNode,
} from './cluster-harness';

jest.setTimeout(180_000);

/**
 * Cluster mode end to end (README.md's configuration table; docs/guarantees.md): three nodes in this process, each a whole app with its own
 * DATA_DIR, talking to each other over the network transport and sharing the machine's Redis under a
 * CLUSTER_ID of the test's own. Offsets committed through the coordinator survive the crash of the
 * coordinator's node; clients are told NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS until the new
 * coordinator serves, and then succeed there.
 */
const GROUP = 'ledger-readers';
const RETRIABLE = ['dead node named', 'NOT_COORDINATOR', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE'];

/** A formed cluster with the `ledger` topic, and the coordinator of GROUP holding three acknowledged commits. */
async function withCommits(cluster: ClusterHarness): Promise<{ coordinator: RunningNode; acknowledged: number[][] }> {
  await cluster.startAll();
  const any = cluster.nodes.get(1)!;
  await request(any.url).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
  await eventually(
    async () =>
      (await Promise.all([...cluster.nodes.values()].map((n) => request(n.url).get('/v1/topics/ledger')))).every(
        (r) => r.status === 200,
      ),
    'the topic on every node',
  );
  const { at: coordinator } = await cluster.retryUntilServed(GROUP);
  const client = await cluster.socketTo(coordinator.url);
  const acknowledged = [
    [10, 11, 12, 13],
    [20, 21, 22, 23],
    [30, 31, 32, 33],
  ];
  for (const offsets of acknowledged)
    expect(commitErrors(await emit(client, 'OffsetCommit', commitRequest(GROUP, offsets)))).toEqual([0, 0, 0, 0, 0]);
  return { coordinator, acknowledged };
}

describe('cluster mode (e2e): three nodes over Redis and the network transport', () => {
  // Each test runs its own cluster (its own CLUSTER_ID and data directories): none depends on another's state.
  let cluster: ClusterHarness;
  const node = (id: number) => cluster.nodes.get(id)!;

  beforeEach(() => void (cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')));
  afterEach(() => cluster.dispose());

  it('forms a cluster: every partition gets a leader and three in-sync replicas, visible from every node', async () => {
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    await cluster.formed(2, 'all partitions led with a full ISR');
    const { body } = await request(node(0).url).get('/v1/cluster').expect(200);
    expect(body.clusterId).toBe(cluster.clusterId);
    expect(body.nodes).toEqual([0, 1, 2].map((nodeId) => ({ nodeId, url: node(nodeId).url, alive: true })));
    expect([0, 1, 2]).toContain(body.controllerId);
  });

  it('keeps acknowledged commits across the crash of the coordinator node, redirecting clients to the new one', async () => {
    const { coordinator, acknowledged } = await withCommits(cluster);
    const asked = await emit<{ errorCode: number; nodeId: number; url: string }>(
      await cluster.socketTo(node(0).url),
      'FindCoordinator',
      { key: GROUP },
    );
    expect(asked).toMatchObject({ errorCode: ErrorCode.NONE, nodeId: coordinator.nodeId, url: coordinator.url });

    // Another node does not coordinate this group and says so.
    const bystander = [...cluster.nodes.values()].find((n) => n !== coordinator)!;
    const wrong = await emit<{ errorCode: number }>(await cluster.socketTo(bystander.url), 'OffsetFetch', {
      groupId: GROUP,
      topics: null,
    });
    expect(wrong.errorCode).toBe(ErrorCode.NOT_COORDINATOR);

    // The coordinator's node dies.
    await cluster.crash(coordinator.nodeId);

    // A client retries as Kafka clients do: FindCoordinator on a live node, then the request there.
    const { seen, fetched, at } = await cluster.retryUntilServed(GROUP);
    for (const event of seen) expect(RETRIABLE).toContain(event);
    expect(committedOffsets(fetched)).toEqual(acknowledged.at(-1));

    // Two of three replicas are enough (min ISR 2): commits are acknowledged again.
    const again = await cluster.socketTo(at.url);
    expect(commitErrors(await emit(again, 'OffsetCommit', commitRequest(GROUP, [40, 41, 42, 43])))).toEqual([
      0, 0, 0, 0, 0,
    ]);
    expect(committedOffsets(await emit(again, 'OffsetFetch', { groupId: GROUP, topics: null }))).toEqual([
      40, 41, 42, 43,
    ]);
    // The node serves the group because its replica leads; its cluster view learns the election from a
    // change hint of its own. Once the view names the new leader, it must also show the old one dead —
    // it was elected only because the old one's registration had expired.
    const partition = partitionFor(GROUP, PARTITIONS);
    await eventually(
      async () => (await request(at.url).get('/v1/cluster/partitions')).body[partition]?.leader === at.nodeId,
      'the view names the new leader',
    );
    const { body } = await request(at.url).get('/v1/cluster').expect(200);
    expect(body.nodes.find((n: { nodeId: number }) => n.nodeId === coordinator.nodeId)).toEqual({
      nodeId: coordinator.nodeId,
      url: coordinator.url,
      alive: false,
    });
  });

  it('takes a crashed node back: it catches up from its own log into every ISR; a controlled shutdown then hands over', async () => {
    const { coordinator: first } = await withCommits(cluster);
    const victim = [0, 1, 2].find((id) => id !== first.nodeId)!;
    await cluster.crash(victim);
    await cluster.startNode(victim);
    await cluster.formed(victim, 'the restarted node back in every ISR');
    const found = await emit<{ nodeId: number }>(await cluster.socketTo(node(victim).url), 'FindCoordinator', {
      key: GROUP,
    });
    const coordinator = node(found.nodeId);
    const client = await cluster.socketTo(coordinator.url);
    expect(commitErrors(await emit(client, 'OffsetCommit', commitRequest(GROUP, [50, 51, 52, 53])))).toEqual([
      0, 0, 0, 0, 0,
    ]);

    // SIGTERM: a controlled shutdown moves leadership away before the node stops.
    await coordinator.app.close();
    cluster.nodes.delete(coordinator.nodeId);
    const { seen, fetched } = await cluster.retryUntilServed(GROUP);
    expect(seen).not.toContain('dead node named');
    expect(committedOffsets(fetched)).toEqual([50, 51, 52, 53]);
  });
});
