import type { Socket } from 'socket.io-client';
import request from 'supertest';
import type * as P from '@cohort/protocol';
import { allow } from '../support/acl-fixtures';
import { request as emit } from '../support/socket-client';
import { tokenApp } from '../support/token-app';

jest.setTimeout(60_000);

/**
 * Share groups' data plane over real sockets on one embedded node with tokens on: a member of a share
 * group leases the offsets producers reported and acknowledges them, a held ShareAcquire is answered
 * when more are reported, and after a restart of the node acknowledged offsets are never leased again
 * and delivery counts go on from where they were. ACLs: READ GROUP for the request (30), READ TOPIC
 * per topic (29 on that topic's partitions).
 */
const node = tokenApp(
  'cohort-sa-',
  { admin: 'admin-token', app: 'app-token', nobody: 'nobody-token' },
  // A new share partition starts at the reported start, so the offsets reported first are leased.
  { env: { GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest' } },
);
const { as, socketOf, closeSockets } = node;

const acquire = (socket: Socket, payload: Partial<P.ShareAcquireRequest>) =>
  emit(socket, 'ShareAcquire', { groupId: 'sg-1', memberId: 'worker-1', maxRecords: 10, ...payload });
const acknowledge = (socket: Socket, acknowledgements: P.ShareAcknowledgement[]) =>
  emit(socket, 'ShareAcknowledge', { groupId: 'sg-1', memberId: 'worker-1', acknowledgements });

beforeAll(async () => {
  await node.start();
  await node.createTopics([
    ['jobs', 2],
    ['secret', 1],
  ]);
  await node.grant([
    allow('User:app', 'READ', 'GROUP', 'sg-', 'PREFIXED'),
    allow('User:app', 'READ', 'TOPIC', 'jobs'),
    allow('User:app', 'DESCRIBE', 'TOPIC', 'jobs'),
    // May subscribe to 'secret' (DESCRIBE) but not read its offsets (READ).
    allow('User:app', 'DESCRIBE', 'TOPIC', 'secret'),
  ]);
});

afterAll(() => node.stop());

const report = (topic: string, partitions: { partition: number; endOffset: number }[]) =>
  request(node.url).put(`/v1/topics/${topic}/end-offsets`).set(as('admin')).send({ partitions }).expect(200);

/** `topic-partition: first-last@count` per lease, sorted, for readable comparisons. */
const leasesOf = (answer: P.ShareAcquireResponse): string[] =>
  answer.partitions
    .flatMap((p) =>
      p.leases.map((l) => `${p.topic}-${p.partition}: ${l.firstOffset}-${l.lastOffset}@${l.deliveryCount}`),
    )
    .sort();

describe('ShareAcquire and ShareAcknowledge over real sockets', () => {
  it('leases reported offsets, takes acknowledgements, wakes a held acquire on a report, and keeps it all across a restart', async () => {
    const group = { groupId: 'sg-flow', memberId: 'worker-1' };
    let app = await socketOf('app');
    const joined = await emit(app, 'ShareGroupHeartbeat', {
      ...group,
      memberEpoch: 0,
      subscribedTopicNames: ['jobs', 'secret'],
    });
    expect(joined).toMatchObject({ errorCode: 0 });
    await report('jobs', [
      { partition: 0, endOffset: 5 },
      { partition: 1, endOffset: 3 },
    ]);
    await report('secret', [{ partition: 0, endOffset: 2 }]);

    const first = await acquire(app, { ...group, maxRecords: 100 });
    expect(first.errorCode).toBe(0);
    expect(leasesOf(first)).toEqual(['jobs-0: 0-4@1', 'jobs-1: 0-2@1']);
    // The member may not read 'secret': its partition answers 29, says why, and nothing of it is leased.
    expect(first.partitions.find((p) => p.topic === 'secret')).toEqual({
      topic: 'secret',
      partition: 0,
      errorCode: 29,
      errorMessage: "Topic authorization failed: READ on topic 'secret' is not allowed.",
      acknowledgeErrorCode: 0,
      leases: [],
    });

    // All done but offset 3 of jobs-0, released for another delivery.
    const acked = await emit(app, 'ShareAcknowledge', {
      ...group,
      acknowledgements: [
        {
          topic: 'jobs',
          partition: 0,
          batches: [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1, 1, 3, 2, 1] }],
        },
        { topic: 'jobs', partition: 1, batches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1] }] },
        { topic: 'secret', partition: 0, batches: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }] },
      ],
    });
    expect(acked.partitions).toEqual([
      { topic: 'jobs', partition: 0, errorCode: 0 },
      { topic: 'jobs', partition: 1, errorCode: 0 },
      {
        topic: 'secret',
        partition: 0,
        errorCode: 29,
        errorMessage: "Topic authorization failed: READ on topic 'secret' is not allowed.",
      },
    ]);
    // An acknowledged offset is no longer held: acknowledging it again is 42 (jobs-0's SPSO is 3, offset 4 is done).
    const again = await emit(app, 'ShareAcknowledge', {
      ...group,
      acknowledgements: [
        { topic: 'jobs', partition: 0, batches: [{ firstOffset: 4, lastOffset: 4, acknowledgeTypes: [2] }] },
      ],
    });
    expect(again.partitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        errorCode: 42,
        errorMessage: 'Offset 4 cannot be acknowledged: offset 4 is not in the acquired state.',
      },
    ]);
    expect(leasesOf(await acquire(app, { ...group, maxRecords: 100 }))).toEqual(['jobs-0: 3-3@2']);

    // Nothing left to lease: held until producers report more.
    const held = acquire(app, { ...group, maxRecords: 100, maxWaitMs: 30_000 });
    let answered = false;
    void held.then(() => (answered = true));
    // A later request on the same socket is answered while the acquire is still held.
    expect(await emit(app, 'ShareAcknowledge', { ...group, acknowledgements: [] })).toMatchObject({ errorCode: 0 });
    expect(answered).toBe(false);
    await report('jobs', [{ partition: 1, endOffset: 6 }]);
    expect(leasesOf(await held)).toEqual(['jobs-1: 3-5@1']);

    closeSockets();
    await node.restart();
    app = await socketOf('app');
    const resumed = await emit(app, 'ShareGroupHeartbeat', { ...group, memberEpoch: joined.memberEpoch });
    expect(resumed.errorCode).toBe(0);
    // Leases do not survive a restart: their offsets come back one delivery further; nothing acknowledged does.
    expect(leasesOf(await acquire(app, { ...group, maxRecords: 100 }))).toEqual(['jobs-0: 3-3@3', 'jobs-1: 3-5@2']);
  });

  it('a principal without READ on the group is refused with 30 on both events', async () => {
    const nobody = await socketOf('nobody');
    expect(await acquire(nobody, {})).toMatchObject({
      errorCode: 30,
      errorName: 'GROUP_AUTHORIZATION_FAILED',
      partitions: [],
    });
    expect(await acknowledge(nobody, [])).toMatchObject({ errorCode: 30, partitions: [] });
  });

  it('a member of no share group is answered 69, and a malformed acknowledgement 42 naming the field', async () => {
    const app = await socketOf('app');
    expect(await acquire(app, {})).toMatchObject({ errorCode: 69, errorName: 'GROUP_ID_NOT_FOUND' });
    const bad = await acknowledge(app, [
      { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [7] }] },
    ]);
    expect(bad).toMatchObject({ errorCode: 42 });
    expect(bad.errorMessage).toContain('acknowledgeTypes');
  });
});
