import { createServer } from 'node:net';
import { CohortAdmin } from '@cohort/client/admin/cohort-admin';
import { CohortError } from '@cohort/client/errors/cohort-error';
import { appPerFile } from '../support/app-per-file';

jest.setTimeout(60_000);

/** A loopback port that nothing listens on (bound, read, closed). */
async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** The SDK's admin client against a real node: every call reaches its route and errors keep their Kafka names. */
describe('CohortAdmin (e2e)', () => {
  const app = appPerFile({ topics: { orders: 4 } });
  const pool = app.members({ topics: ['orders'] });
  const admin = (): CohortAdmin => new CohortAdmin({ urls: [app.url] });

  it('creates, grows, describes and lists topics, and records reported end offsets', async () => {
    await expect(admin().createTopic('payments', 2)).resolves.toEqual({
      name: 'payments',
      partitions: 2,
      endOffsets: {},
      startOffsets: {},
      reportedAt: {},
    });
    await expect(admin().alterTopic('payments', 3)).resolves.toMatchObject({ name: 'payments', partitions: 3 });
    await admin().reportOffsets('payments', [{ partition: 1, endOffset: 40 }]);
    await expect(admin().describeTopic('payments')).resolves.toMatchObject({
      name: 'payments',
      partitions: 3,
      endOffsets: { 1: 40 },
      startOffsets: {},
      reportedAt: { 1: expect.any(Number) },
    });
    const names = (await admin().listTopics()).map((topic) => topic.name);
    expect(names).toEqual(expect.arrayContaining(['orders', 'payments']));
    const duplicate = await admin()
      .createTopic('payments', 1)
      .catch((error: unknown) => error);
    expect(duplicate).toBeInstanceOf(CohortError);
    expect(duplicate).toMatchObject({ name: 'INVALID_REQUEST', code: 42, status: 400, retriable: false });
    await expect(admin().describeTopic('nope')).rejects.toMatchObject({
      name: 'UNKNOWN_TOPIC_OR_PARTITION',
      status: 404,
    });
  });

  it('reaches groups named ".", "..", "%2E" and "a/../b" (URLs normalise dot segments, even percent-encoded)', async () => {
    const ids = ['.', '..', '%2E', '%2e%2E', 'a/../b'];
    for (const [index, groupId] of ids.entries()) {
      await admin().setOffsets(groupId, [
        { name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: index + 1 }] },
      ]);
    }
    for (const [index, groupId] of ids.entries()) {
      await expect(admin().describeGroup(groupId)).resolves.toMatchObject({ groupId, state: 'Empty' });
      const offsets = await admin().fetchOffsets(groupId);
      expect({ groupId, offsets: offsets.offsets.map((o) => o.committedOffset) }).toEqual({
        groupId,
        offsets: [index + 1],
      });
    }
    for (const groupId of ids) await admin().deleteGroup(groupId);
    const left = (await admin().listGroups()).map((g) => g.groupId);
    for (const groupId of ids) expect(left).not.toContain(groupId);
  });

  it('sets, reads and deletes the offsets of an Empty group, lists, describes and deletes the group', async () => {
    await admin().setOffsets('billing', [
      {
        name: 'orders',
        partitions: [
          { partitionIndex: 0, committedOffset: 7 },
          { partitionIndex: 1, committedOffset: 9 },
        ],
      },
    ]);
    await admin().reportOffsets('orders', [{ partition: 0, endOffset: 10 }]);
    const offsets = await admin().fetchOffsets('billing');
    expect(offsets.groupId).toBe('billing');
    expect(
      offsets.offsets.map(({ topic, partition, committedOffset, lag }) => ({ topic, partition, committedOffset, lag })),
    ).toEqual([
      { topic: 'orders', partition: 0, committedOffset: 7, lag: 3 },
      { topic: 'orders', partition: 1, committedOffset: 9, lag: null },
    ]);
    expect(offsets.totalLag).toBe(3);
    const listed = await admin().listGroups({ states: ['Empty'] });
    expect(listed).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ groupId: 'billing', state: 'Empty', members: 0, coordinator: 0 }),
      ]),
    );
    await expect(admin().listGroups({ states: ['Stable'] })).resolves.not.toEqual(
      expect.arrayContaining([expect.objectContaining({ groupId: 'billing' })]),
    );
    await expect(admin().describeGroup('billing')).resolves.toMatchObject({
      groupId: 'billing',
      state: 'Empty',
      members: [],
    });
    await admin().deleteOffsets('billing', 'orders', 1);
    expect((await admin().fetchOffsets('billing')).offsets.map((offset) => offset.partition)).toEqual([0]);
    await expect(admin().groupRebalances('billing')).resolves.toEqual([]);
    await admin().deleteGroup('billing');
    await expect(admin().describeGroup('billing')).rejects.toMatchObject({
      name: 'GROUP_ID_NOT_FOUND',
      code: 69,
      status: 404,
    });
    await expect(admin().deleteGroup('billing')).rejects.toMatchObject({ name: 'GROUP_ID_NOT_FOUND' });
  });

  it("refuses to delete a group with members, naming Kafka's error", async () => {
    const member = await pool.member('busy');
    const joined = await member.join();
    await member.sync(joined);
    await expect(admin().deleteGroup('busy')).rejects.toMatchObject({ name: 'NON_EMPTY_GROUP', code: 68, status: 409 });
    const described = await admin().describeGroup('busy');
    expect(described).toMatchObject({ state: 'Stable', generationId: 1, leader: member.memberId });
    expect(described.members.map((m) => m.memberId)).toEqual([member.memberId]);
    const history = await admin().groupRebalances('busy');
    expect(history).toHaveLength(1);
    expect(history[0]).toMatchObject({ generationId: 1, members: 1 });
    await member.leave();
  });

  it('describes the cluster, its offsets partitions and its assignors, and dry-runs one', async () => {
    const cluster = await admin().cluster();
    expect(cluster.nodes).toEqual([expect.objectContaining({ nodeId: 0, alive: true })]);
    const partitions = await admin().clusterPartitions();
    expect(partitions).toHaveLength(50);
    expect(partitions[0]).toMatchObject({ partition: 0, leader: 0, isr: [0] });
    expect((await admin().listAssignors()).map((a) => a.name)).toEqual(
      expect.arrayContaining(['range', 'cooperative-sticky']),
    );
    const dryRun = await admin().assign('range', {
      partitionsPerTopic: { orders: 4 },
      members: [
        { memberId: 'b', topics: ['orders'] },
        { memberId: 'a', topics: ['orders'] },
      ],
    });
    expect(dryRun.assignments).toEqual({
      a: [{ topic: 'orders', partitions: [0, 1] }],
      b: [{ topic: 'orders', partitions: [2, 3] }],
    });
    await expect(admin().assign('telepathic', { partitionsPerTopic: {}, members: [] })).rejects.toMatchObject({
      name: 'UNSUPPORTED_ASSIGNOR',
      status: 404,
    });
  });

  it('skips a node that cannot be reached and reports when none can be', async () => {
    const dead = await deadUrl();
    await expect(new CohortAdmin({ urls: [dead, app.url] }).cluster()).resolves.toMatchObject({
      nodes: [expect.objectContaining({ nodeId: 0 })],
    });
    const error = await new CohortAdmin({ urls: [dead] }).cluster().catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'NETWORK_EXCEPTION', retriable: true });
    expect((error as Error).message).toContain(dead);
  });
});
