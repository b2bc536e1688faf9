import request from 'supertest';
import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { AuditLogger, type AuditEvent } from '../../src/security/audit-logger';
import { allow } from '../support/acl-fixtures';
import { writeTokensFile } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { startApp, type RunningApp, tempDataDir } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * An offset reset of a share group over real HTTP with tokens and ACLs on (Kafka's
 * kafka-share-groups.sh --reset-offsets): the preview shows SPSO; executing needs READ on the group and
 * on every topic (as the classic reset), is refused while a member works the group, moves SPSO back
 * under a new state epoch, is audited, and a member joining afterwards leases from the new SPSO.
 */
const TOKENS = { admin: 'admin-token', ops: 'ops-token', groupOnly: 'group-only-token', nobody: 'nobody-token' };
const dir = tempDataDir('cohort-share-reset-');
const data = tempDataDir('cohort-share-reset-data-');
const audit: AuditEvent[] = [];
let running: RunningApp;
const sockets: Socket[] = [];
const as = (principal: keyof typeof TOKENS) => ({ Authorization: `Bearer ${TOKENS[principal]}` });
const http = () => request(running.url);
const resetAs = (principal: keyof typeof TOKENS, body: Record<string, unknown>) =>
  http().post('/v1/groups/workers/offsets/reset').set(as(principal)).send(body);

/** A member of `workers` on its own socket, assigned jobs-0. */
async function join(memberId: string): Promise<{ socket: Socket; epoch: number }> {
  const socket = await connect(running.url, { token: TOKENS.admin });
  sockets.push(socket);
  let epoch = 0;
  await eventually(
    async () => {
      const answer = await emit(socket, 'ShareGroupHeartbeat', {
        groupId: 'workers',
        memberId,
        memberEpoch: epoch,
        subscribedTopicNames: ['jobs'],
      } as P.ShareGroupHeartbeatRequest);
      expect(answer.errorCode).toBe(0);
      epoch = answer.memberEpoch;
      return (answer.assignment?.topicPartitions ?? []).some((tp) => tp.topic === 'jobs');
    },
    `${memberId} is assigned jobs-0`,
    10_000,
  );
  return { socket, epoch };
}

const acquire = (socket: Socket, memberId: string, maxRecords: number) =>
  emit(socket, 'ShareAcquire', { groupId: 'workers', memberId, maxRecords } as P.ShareAcquireRequest);

async function sharePartition(): Promise<P.SharePartitionView> {
  const described = await http().get('/v1/groups/workers').set(as('admin')).expect(200);
  return (described.body as { sharePartitions: P.SharePartitionView[] }).sharePartitions[0];
}

beforeAll(async () => {
  running = await startApp({
    DATA_DIR: data.dir,
    GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest',
    AUTH_TOKENS_FILE: writeTokensFile(
      dir.dir,
      Object.fromEntries(Object.entries(TOKENS).map(([name, token]) => [`User:${name}`, token])),
    ),
    SUPER_USERS: 'User:admin',
  });
  jest.spyOn(AuditLogger.prototype, 'record').mockImplementation((event) => void audit.push(event));
  await http().post('/v1/topics').set(as('admin')).send({ name: 'jobs', partitions: 1 }).expect(201);
  await http()
    .put('/v1/topics/jobs/end-offsets')
    .set(as('admin'))
    .send({ partitions: [{ partition: 0, endOffset: 8 }] })
    .expect(200);
  await http()
    .post('/v1/acls')
    .set(as('admin'))
    .send({
      acls: [
        allow('User:ops', 'READ', 'GROUP', 'workers'),
        allow('User:ops', 'READ', 'TOPIC', 'jobs'),
        allow('User:groupOnly', 'READ', 'GROUP', 'workers'),
      ],
    })
    .expect(201);
});

afterAll(async () => {
  for (const socket of sockets) socket.disconnect();
  await running?.close();
  dir.remove();
  data.remove();
});

describe('share group offset reset over REST', () => {
  it('needs READ GROUP and READ TOPIC, waits for the group to be Empty, and moves SPSO back for the next member', async () => {
    const first = await join('worker-1');
    const leased = await acquire(first.socket, 'worker-1', 5);
    expect(leased.partitions[0].leases).toEqual([{ firstOffset: 0, lastOffset: 4, deliveryCount: 1 }]);
    const acked = await emit(first.socket, 'ShareAcknowledge', {
      groupId: 'workers',
      memberId: 'worker-1',
      acknowledgements: [
        { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] }] },
      ],
    } as P.ShareAcknowledgeRequest);
    expect(acked.partitions[0].errorCode).toBe(0);
    expect(await sharePartition()).toMatchObject({ startOffset: 5, stateEpoch: 0 });

    // Refused: without READ on the group (30), or on the topic, named or reached through allTopics (29).
    const byNobody = await resetAs('nobody', { topics: [{ name: 'jobs' }], strategy: 'earliest' }).expect(403);
    expect(byNobody.body).toMatchObject({ errorCode: 30, error: 'GROUP_AUTHORIZATION_FAILED' });
    for (const body of [
      { topics: [{ name: 'jobs' }], strategy: 'earliest', dryRun: false },
      { allTopics: true, strategy: 'earliest', dryRun: false },
    ]) {
      const refused = await resetAs('groupOnly', body).expect(403);
      expect(refused.body).toMatchObject({ errorCode: 29, error: 'TOPIC_AUTHORIZATION_FAILED' });
    }
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:nobody',
        resourceType: 'GROUP',
        resourceName: 'workers',
        outcome: 'DENIED',
      }),
    );

    // The preview shows SPSO; executing while worker-1 is a member is NON_EMPTY_GROUP, and audited as failed.
    const preview = await resetAs('ops', { allTopics: true, strategy: 'shift', value: -3 }).expect(200);
    expect(preview.body).toEqual({
      groupId: 'workers',
      dryRun: true,
      offsets: [{ topic: 'jobs', partition: 0, currentOffset: 5, newOffset: 2 }],
    });
    const busy = await resetAs('ops', { allTopics: true, strategy: 'shift', value: -3, dryRun: false }).expect(409);
    expect(busy.body).toMatchObject({ errorCode: 68, error: 'NON_EMPTY_GROUP' });
    expect(busy.body.message).toContain('only while it is Empty');
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:ops',
        operation: 'READ',
        resourceType: 'GROUP',
        resourceName: 'workers',
        request: 'POST /v1/groups/:groupId/offsets/reset',
        outcome: 'FAILED',
        detail: expect.stringContaining('NON_EMPTY_GROUP'),
      }),
    );
    expect(await sharePartition()).toMatchObject({ startOffset: 5, stateEpoch: 0 });

    const left = await emit(first.socket, 'ShareGroupHeartbeat', {
      groupId: 'workers',
      memberId: 'worker-1',
      memberEpoch: -1,
    } as P.ShareGroupHeartbeatRequest);
    expect(left.errorCode).toBe(0);
    const done = await resetAs('ops', {
      topics: [{ name: 'jobs', partitions: [0] }],
      strategy: 'shift',
      value: -3,
      dryRun: false,
    }).expect(200);
    expect(done.body).toEqual({
      groupId: 'workers',
      dryRun: false,
      offsets: [{ topic: 'jobs', partition: 0, currentOffset: 5, newOffset: 2 }],
    });
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:ops',
        resourceName: 'workers',
        request: 'POST /v1/groups/:groupId/offsets/reset',
        outcome: 'SUCCEEDED',
        detail: 'topics jobs',
      }),
    );
    expect(await sharePartition()).toMatchObject({
      startOffset: 2,
      endOffset: 8,
      stateEpoch: 1,
      offsets: { available: 6, acquired: 0, acknowledged: 0, archived: 0 },
    });

    // Offsets 2-4 were acknowledged before the reset: they are delivered again, counted from one.
    const second = await join('worker-2');
    const again = await acquire(second.socket, 'worker-2', 10);
    expect(again.partitions[0].leases).toEqual([{ firstOffset: 2, lastOffset: 7, deliveryCount: 1 }]);
  });
});
