import request from 'supertest';
import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { startApp, type RunningApp, tempDataDir } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * What REST shows of a share group (KIP-932) whose member heartbeats, leases and acknowledges over a real
 * socket: its type, state, epochs and member with its assignment, and per share partition SPSO, the
 * reported end, offsets by state and the oldest lease's age; its dead letters, and their redelivery
 * moving SPSO back under a new state epoch. (ACLs of these routes: share-dead-letters-rest.e2e-spec.ts.)
 */
const data = tempDataDir('cohort-share-rest-');
let running: RunningApp;
let socket: Socket;
const http = () => request(running.url);

beforeAll(async () => {
  running = await startApp({ DATA_DIR: data.dir, GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest' });
  await http().post('/v1/topics').send({ name: 'jobs', partitions: 1 }).expect(201);
  await http()
    .put('/v1/topics/jobs/end-offsets')
    .send({ partitions: [{ partition: 0, endOffset: 6 }] })
    .expect(200);
  socket = await connect(running.url);
});

afterAll(async () => {
  socket?.disconnect();
  await running?.close();
  data.remove();
});

describe('share groups over REST', () => {
  it('shows the member, each share partition and its dead letters, and redelivers them', async () => {
    let epoch = 0;
    await eventually(
      async () => {
        const answer = await emit(socket, 'ShareGroupHeartbeat', {
          groupId: 'workers',
          memberId: 'worker-1',
          memberEpoch: epoch,
          subscribedTopicNames: ['jobs'],
        } as P.ShareGroupHeartbeatRequest);
        expect(answer.errorCode).toBe(0);
        epoch = answer.memberEpoch;
        return (answer.assignment?.topicPartitions ?? []).some((tp) => tp.topic === 'jobs');
      },
      'worker-1 is assigned jobs-0',
      10_000,
    );
    const acquired = await emit(socket, 'ShareAcquire', {
      groupId: 'workers',
      memberId: 'worker-1',
      maxRecords: 5,
    } as P.ShareAcquireRequest);
    expect(acquired.partitions[0].leases).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    const acked = await emit(socket, 'ShareAcknowledge', {
      groupId: 'workers',
      memberId: 'worker-1',
      acknowledgements: [
        { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 2, acknowledgeTypes: [1, 3, 1] }] },
      ],
    } as P.ShareAcknowledgeRequest);
    expect(acked.partitions[0].errorCode).toBe(0);

    const described = (await http().get('/v1/groups/workers').expect(200)).body;
    expect(described).toMatchObject({
      groupId: 'workers',
      type: 'share',
      state: 'Stable',
      protocolType: 'share',
      assignor: 'simple',
      groupEpoch: epoch,
      members: [
        {
          memberId: 'worker-1',
          memberEpoch: epoch,
          subscribedTopicNames: ['jobs'],
          assignment: { partitions: [{ topic: 'jobs', partitions: [0] }] },
        },
      ],
    });
    expect(described.sharePartitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        startOffset: 3,
        endOffset: 6,
        stateEpoch: 0,
        offsets: { available: 1, acquired: 2, acknowledged: 0, archived: 0 },
        oldestLeaseAgeMs: expect.any(Number) as number,
      },
    ]);
    expect((await http().get('/v1/groups').expect(200)).body).toEqual([
      { groupId: 'workers', type: 'share', protocolType: 'share', state: 'Stable', members: 1, coordinator: 0 },
    ]);

    // It has no rebalance history and no committed offsets: empty answers, not a missing group.
    expect((await http().get('/v1/groups/workers/rebalances').expect(200)).body).toEqual([]);
    expect((await http().get('/v1/groups/workers/lag').expect(200)).body).toMatchObject({ partitions: [] });
    // Its position is SPSO: a reset previews it, and executing waits for the group to be Empty, creating nothing.
    const preview = await http()
      .post('/v1/groups/workers/offsets/reset')
      .send({ allTopics: true, strategy: 'earliest' })
      .expect(200);
    expect(preview.body.offsets).toEqual([{ topic: 'jobs', partition: 0, currentOffset: 3, newOffset: 0 }]);
    const reset = await http()
      .post('/v1/groups/workers/offsets/reset')
      .send({ allTopics: true, strategy: 'earliest', dryRun: false })
      .expect(409);
    expect(reset.body).toMatchObject({ errorCode: 68, error: 'NON_EMPTY_GROUP' });
    expect((await http().get('/v1/groups').expect(200)).body).toHaveLength(1);

    expect((await http().get('/v1/groups/workers/dead-letters').expect(200)).body).toEqual({
      groupId: 'workers',
      deadLetters: [
        { topic: 'jobs', partition: 0, firstOffset: 1, lastOffset: 1, reason: 'rejected', deliveryCount: 1 },
      ],
    });
    const redelivered = await http()
      .post('/v1/groups/workers/dead-letters/redeliver')
      .send({ topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 2 })
      .expect(200);
    expect(redelivered.body).toEqual({
      groupId: 'workers',
      topic: 'jobs',
      partition: 0,
      redelivered: 1,
      startOffset: 1,
      stateEpoch: 1,
    });
    expect((await http().get('/v1/groups/workers/dead-letters').expect(200)).body.deadLetters).toEqual([]);
    // Offset 1 is leased again, counted from zero; 0 and 2 stay acknowledged.
    const again = await emit(socket, 'ShareAcquire', {
      groupId: 'workers',
      memberId: 'worker-1',
      maxRecords: 1,
    } as P.ShareAcquireRequest);
    expect(again.partitions[0].leases).toEqual([{ firstOffset: 1, lastOffset: 1, deliveryCount: 1 }]);
  });
});
