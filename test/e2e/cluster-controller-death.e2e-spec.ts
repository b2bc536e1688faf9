import request from 'supertest';
import { partitionFor } from '@cohort/protocol';
import { eventually } from '../support/group-member';
import { request as emit } from '../support/socket-client';
import { ClusterHarness, PARTITIONS, commitErrors, commitRequest, committedOffsets } from './cluster-harness';

jest.setTimeout(180_000);

type PartitionRow = { partition: number; leader: number | null; replicas: number[]; isr: number[] };

/** A group id whose offsets partition is `partition`. */
function groupOn(partition: number): string {
  for (let i = 0; ; i++)
    if (partitionFor(`controller-death-${i}`, PARTITIONS) === partition) return `controller-death-${i}`;
}

/**
 * Issue #13: the node that dies is a follower of the coordinator's partition and also the controller, so
 * the leader's ISR shrink must wait for a new controller. It must not wait for the dead node's session:
 * commits keep being acknowledged (none times out at OFFSETS_COMMIT_TIMEOUT_MS, 5 s) with the default
 * NODE_SESSION_TIMEOUT_MS of 6 s.
 */
describe('cluster mode (e2e): the controller dies', () => {
  let cluster: ClusterHarness;
  beforeEach(() => void (cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379')));
  afterEach(() => cluster.dispose());

  it('commits to a surviving coordinator whose ISR held the controller keep being acknowledged, none timed out', async () => {
    // A lag long enough that only the closed connections can take the dead node out of the ISR in time.
    await cluster.startAll({ NODE_SESSION_TIMEOUT_MS: '6000', REPLICA_LAG_TIME_MAX_MS: '30000' });
    const entry = cluster.nodes.get(0)!;
    await request(entry.url).post('/v1/topics').send({ name: 'ledger', partitions: 1 }).expect(201);
    const { body: before } = await request(entry.url).get('/v1/cluster').expect(200);
    const victim: number = before.controllerId;
    const partitions: PartitionRow[] = (await request(entry.url).get('/v1/cluster/partitions').expect(200)).body;
    const target = partitions.find((p) => p.leader !== victim && p.isr.includes(victim))!;
    const coordinator = cluster.nodes.get(target.leader!)!;
    const group = groupOn(target.partition);
    const client = await cluster.socketTo(coordinator.url);
    await eventually(
      async () => (await request(coordinator.url).get('/v1/topics/ledger')).status === 200,
      'the topic on the coordinator',
    );
    await eventually(
      async () => commitErrors(await emit(client, 'OffsetCommit', commitRequest(group, [1]))).every((e) => e === 0),
      'the coordinator serving',
    );

    const crashedAt = Date.now();
    await cluster.crash(victim);
    const answers: Array<number[] | 'no answer'> = [];
    const latencies: number[] = [];
    for (let i = 2; i < 22; i++) {
      const sent = Date.now();
      answers.push(
        await emit<Parameters<typeof commitErrors>[0]>(client, 'OffsetCommit', commitRequest(group, [i])).then(
          commitErrors,
          () => 'no answer' as const,
        ),
      );
      latencies.push(Date.now() - sent);
    }
    // The figure the issue asks about (reported, not asserted: timings belong to benchmarks).
    console.log(
      `controller SIGKILL: first commit after it answered ${latencies[0]} ms after sending, ${Date.now() - crashedAt} ms for all 20; slowest ${Math.max(...latencies)} ms`,
    );
    expect(answers).toEqual(answers.map(() => [0, 0]));
    expect(committedOffsets(await emit(client, 'OffsetFetch', { groupId: group, topics: null }))).toEqual([21]);
    // A new controller took the dead node out of the ISR.
    const { body: after } = await request(coordinator.url).get('/v1/cluster').expect(200);
    expect(after.controllerId).not.toBe(victim);
    const row = (
      (await request(coordinator.url).get('/v1/cluster/partitions').expect(200)).body as PartitionRow[]
    ).find((p) => p.partition === target.partition)!;
    expect(row.isr).not.toContain(victim);
  });
});
