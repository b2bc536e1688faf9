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

type PartitionRow = { partition: number; leader: number | null; replicas: number[]; isr: number[] };

async function partitionsSeenBy(node: RunningNode): Promise<PartitionRow[]> {
  return (await request(node.url).get('/v1/cluster/partitions').expect(200)).body;
}

/** A group id whose offsets partition is `partition`. */
function groupOn(partition: number): string {
  for (let i = 0; ; i++) if (partitionFor(`failover-${i}`, PARTITIONS) === partition) return `failover-${i}`;
}

/** Liveness of a cluster around the death of one node: who keeps serving, and who leads afterwards. */
describe('cluster mode (e2e): one node dies', () => {
  let cluster: ClusterHarness;
  beforeEach(() => void (cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')));
  afterEach(() => cluster.dispose());

  it('commits to the surviving coordinators keep being acknowledged, long before the dead node is fenced', async () => {
    // Session and lag long enough that waiting for either would time every commit out (OFFSETS_COMMIT_TIMEOUT_MS 5 s).
    await cluster.startAll({ NODE_SESSION_TIMEOUT_MS: '30000', REPLICA_LAG_TIME_MAX_MS: '30000' });
    const entry = cluster.nodes.get(0)!;
    await request(entry.url).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    const { body: clusterBefore } = await request(entry.url).get('/v1/cluster').expect(200);
    const partitions = await partitionsSeenBy(entry);
    // A coordinator that survives, and a victim that is neither it nor the controller (whose lease would have to expire).
    const coordinatorId =
      partitions.map((p) => p.leader!).find((id) => id !== clusterBefore.controllerId) ?? clusterBefore.controllerId;
    const victim = [0, 1, 2].find((id) => id !== coordinatorId && id !== clusterBefore.controllerId)!;
    const group = groupOn(partitions.find((p) => p.leader === coordinatorId)!.partition);
    const coordinator = cluster.nodes.get(coordinatorId)!;
    const client = await cluster.socketTo(coordinator.url);
    await eventually(
      async () => (await request(coordinator.url).get('/v1/topics/ledger')).status === 200,
      'the topic on the coordinator',
    );
    // Node 0's view of the leaders can be ahead of the coordinator's own: until that node has applied its
    // leadership and loaded the partition it answers NOT_COORDINATOR, as a Kafka broker does.
    await eventually(
      async () =>
        (await emit<{ errorCode: number }>(client, 'OffsetFetch', { groupId: group, topics: null })).errorCode ===
        ErrorCode.NONE,
      'the coordinator serving the group',
    );
    expect(commitErrors(await emit(client, 'OffsetCommit', commitRequest(group, [1, 1, 1, 1])))).toEqual([
      0, 0, 0, 0, 0,
    ]);

    const crashedAt = Date.now();
    await cluster.crash(victim);
    const answers: number[][] = [];
    const latencies: number[] = [];
    for (let i = 2; i < 22; i++) {
      const sent = Date.now();
      answers.push(commitErrors(await emit(client, 'OffsetCommit', commitRequest(group, [i, i, i, i]))));
      latencies.push(Date.now() - sent);
    }
    // The figure the issue asks about (reported, not asserted: timings belong to benchmarks).
    console.log(
      `follower SIGKILL: first commit after it answered ${latencies[0]} ms after sending, ${Date.now() - crashedAt} ms for all 20; slowest ${Math.max(...latencies)} ms`,
    );
    expect(answers).toEqual(answers.map(() => [0, 0, 0, 0, 0]));
    expect(committedOffsets(await emit(client, 'OffsetFetch', { groupId: group, topics: null }))).toEqual([
      21, 21, 21, 21,
    ]);
    // All of that happened while the victim was still registered: nothing waited for its fencing.
    const { body: clusterAfter } = await request(coordinator.url).get('/v1/cluster').expect(200);
    expect(clusterAfter.nodes.find((n: { nodeId: number }) => n.nodeId === victim).alive).toBe(true);
    const row = (await partitionsSeenBy(coordinator)).find((p) => p.partition === partitionFor(group, PARTITIONS))!;
    expect(row.isr).not.toContain(victim);
  });

  it('a restarted node leads its preferred partitions again once it is back in their ISRs', async () => {
    await cluster.startAll({ LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS: '1' });
    const entry = cluster.nodes.get(0)!;
    await request(entry.url).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    const victim = 2;
    const preferred = (await partitionsSeenBy(entry)).filter((p) => p.replicas[0] === victim).map((p) => p.partition);
    expect(preferred.length).toBeGreaterThan(0);
    const group = groupOn(preferred[0]);
    const before = await cluster.retryUntilServed(group);
    expect(before.at.nodeId).toBe(victim);
    expect(
      commitErrors(
        await emit(await cluster.socketTo(before.at.url), 'OffsetCommit', commitRequest(group, [5, 6, 7, 8])),
      ),
    ).toEqual([0, 0, 0, 0, 0]);

    await cluster.crash(victim);
    await eventually(
      async () => (await partitionsSeenBy(entry)).every((p) => p.leader !== null && p.leader !== victim),
      'the others lead everything',
      60_000,
    );
    await cluster.startNode(victim, { LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS: '1' });
    await eventually(
      async () => {
        const rows = await partitionsSeenBy(entry);
        return preferred.every((p) => rows.find((r) => r.partition === p)?.leader === victim);
      },
      'the restarted node leads its preferred partitions',
      60_000,
    );
    const after = await cluster.retryUntilServed(group);
    expect(after.at.nodeId).toBe(victim);
    expect(committedOffsets(after.fetched)).toEqual([5, 6, 7, 8]);
    const again = await emit<{ errorCode: number }>(
      await cluster.socketTo(after.at.url),
      'OffsetCommit',
      commitRequest(group, [9, 9, 9, 9]),
    );
    expect(again.errorCode).toBe(ErrorCode.NONE);
  });
});
