import { CohortClient, type Lease, type ShareMember } from '@cohort/client';
import { appPerFile } from '../support/app-per-file';
import { eventually } from '../support/group-member';
import { SdkSockets } from '../support/sdk-sockets';

jest.setTimeout(120_000);

const TOPIC = 'jobs';
const GRACE_MS = 1000;

/**
 * @cohort/client's share members against a real node over real sockets: workers draining a queue
 * between them, a worker that dies holding a lease, and rejected offsets becoming dead letters.
 */
describe('@cohort/client share members (e2e)', () => {
  const app = appPerFile({
    env: { GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest', MEMBER_DISCONNECT_GRACE_MS: String(GRACE_MS) },
    topics: { [TOPIC]: 2, single: 1, poison: 1 },
  });
  const clients: CohortClient[] = [];
  const client = (sockets?: SdkSockets): CohortClient => {
    const c = new CohortClient({
      urls: [app.url],
      clientId: 'share-e2e',
      ...(sockets ? { socketFactory: sockets.factory } : {}),
    });
    clients.push(c);
    return c;
  };
  const reportEnd = (topic: string, ends: number[]) =>
    app
      .http()
      .put(`/v1/topics/${topic}/end-offsets`)
      .send({ partitions: ends.map((endOffset, partition) => ({ partition, endOffset })) })
      .expect(200);

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it('three workers drain 1,000 offsets between them: each offset acknowledged once, none lost', async () => {
    const groupId = 'drain';
    const accepted = new Map<string, number>();
    const problems: string[] = [];
    const leased = [0, 0, 0];
    const workers: ShareMember[] = [0, 1, 2].map((i) => {
      const member = client().shareMember({ groupId, topics: [TOPIC], maxRecords: 20, batchSize: 10, maxWaitMs: 500 });
      member.on('acknowledged', ({ partition, offsets, error }) => {
        if (error) problems.push(`${partition}: ${error.name}`);
        for (const { firstOffset, lastOffset, type } of offsets)
          for (let o = firstOffset; o <= lastOffset; o++) {
            if (type !== 'accept') problems.push(`${partition}-${o} ${type}`);
            accepted.set(`${partition}-${o}`, (accepted.get(`${partition}-${o}`) ?? 0) + 1);
          }
      });
      member.on('lost', ({ leases }) => problems.push(`lost ${JSON.stringify(leases)}`));
      void (async () => {
        for await (const lease of member.leases()) leased[i] += lease.lastOffset - lease.firstOffset + 1;
      })();
      return member;
    });
    await Promise.all(workers.map((w) => w.start()));
    await reportEnd(TOPIC, [500, 500]);
    await eventually(() => accepted.size === 1000, '1,000 offsets accepted', 60_000);
    await Promise.all(workers.map((w) => w.stop()));
    expect(problems).toEqual([]);
    expect([...accepted.values()].every((times) => times === 1)).toBe(true);
    for (let p = 0; p < 2; p++) for (let o = 0; o < 500; o++) expect(accepted.has(`${p}-${o}`)).toBe(true);
    expect(leased.reduce((a, b) => a + b)).toBe(1000);
    // Every worker took part (the partitions are shared among more members than there are partitions).
    expect(leased.filter((n) => n > 0).length).toBeGreaterThanOrEqual(2);
  });

  it('a worker killed holding a lease: its offsets go to another worker with delivery count 2', async () => {
    const groupId = 'killed';
    const network = new SdkSockets();
    const doomed = client(network).shareMember({
      groupId,
      topics: ['single'],
      acknowledgement: 'explicit',
      maxRecords: 10,
      requestTimeoutMs: 1000,
    });
    await doomed.start();
    await reportEnd('single', [10]);
    const taken = (await doomed.leases().next()).value as Lease;
    expect(taken).toMatchObject({ firstOffset: 0, lastOffset: 9, deliveryCount: 1 });
    // Killed: nothing it sends arrives any more, and its connection is gone.
    network.freeze();
    for (const socket of network.sockets) {
      socket.io.reconnection(false);
      socket.io.engine.close();
    }
    const survivor = client().shareMember({ groupId, topics: ['single'], acknowledgement: 'explicit', maxWaitMs: 500 });
    const got: Lease[] = [];
    void (async () => {
      for await (const lease of survivor.leases()) {
        got.push(lease);
        survivor.acknowledge({
          topic: lease.topic,
          partition: lease.partition,
          firstOffset: lease.firstOffset,
          lastOffset: lease.lastOffset,
          type: 'accept',
        });
      }
    })();
    await eventually(
      () => got.reduce((n, l) => n + l.lastOffset - l.firstOffset + 1, 0) === 10,
      'the ten offsets redelivered',
      30_000,
    );
    expect(got.every((l) => l.deliveryCount === 2)).toBe(true);
    expect(got.map((l) => [l.firstOffset, l.lastOffset])).toEqual([[0, 9]]);
    const results = await survivor.commit();
    expect(results.every((r) => r.error === null)).toBe(true);
  });

  it('offsets a worker rejects become dead letters (GET /v1/groups/:groupId/dead-letters) and are never leased again', async () => {
    const groupId = 'poison';
    const member = client().shareMember({ groupId, topics: ['poison'], acknowledgement: 'explicit', maxWaitMs: 200 });
    await member.start();
    await reportEnd('poison', [6]);
    const leases = member.leases();
    const lease = (await leases.next()).value as Lease;
    expect(lease).toMatchObject({ firstOffset: 0, lastOffset: 5, deliveryCount: 1 });
    const at = { topic: 'poison', partition: 0 };
    member.acknowledge({ ...at, firstOffset: 0, lastOffset: 1, type: 'accept' });
    member.acknowledge({ ...at, offset: 2, type: 'reject' });
    member.acknowledge({ ...at, firstOffset: 3, lastOffset: 5, type: 'accept' });
    const results = await member.commit();
    expect(results).toEqual([
      {
        ...at,
        offsets: [
          { firstOffset: 0, lastOffset: 1, type: 'accept' },
          { firstOffset: 2, lastOffset: 2, type: 'reject' },
          { firstOffset: 3, lastOffset: 5, type: 'accept' },
        ],
        error: null,
      },
    ]);
    const { body } = await app.http().get(`/v1/groups/${groupId}/dead-letters`).expect(200);
    expect(body).toEqual({
      groupId,
      deadLetters: [{ ...at, firstOffset: 2, lastOffset: 2, reason: 'rejected', deliveryCount: 1 }],
    });
    // Nothing is left to lease: the next ask waits out its long poll and gets nothing.
    let next: IteratorResult<Lease, void> | null = null;
    void leases.next().then((r) => (next = r));
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(next).toBeNull();
    await member.stop();
    await eventually(() => next !== null, 'the iteration ended with the stop');
    expect(next).toEqual({ done: true, value: undefined });
  });
});
