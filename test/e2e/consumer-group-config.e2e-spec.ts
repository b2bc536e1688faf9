import type { Socket } from 'socket.io-client';
import request from 'supertest';
import type * as P from '@cohort/protocol';
import { connect, request as emit } from '../support/socket-client';
import { startApp, type RunningApp, tempDataDir } from '../support/test-app';

jest.setTimeout(60_000);

/**
 * The GROUP_CONSUMER_* settings reach the consumer groups of a running node: the heartbeat interval
 * members are told, the default server assignor and the group size limit; a bad value stops the start
 * with a message naming the variable.
 */
const data = tempDataDir('cohort-cg-config-');
let running: RunningApp | undefined;
const sockets: Socket[] = [];

const heartbeat = (socket: Socket, memberId: string) =>
  emit(socket, 'ConsumerGroupHeartbeat', {
    groupId: 'configured',
    memberId,
    memberEpoch: 0,
    subscribedTopicNames: ['orders'],
    rebalanceTimeoutMs: 30_000,
    topicPartitions: [],
  } as P.ConsumerGroupHeartbeatRequest);

async function socket(): Promise<Socket> {
  const connected = await connect(running!.url);
  sockets.push(connected);
  return connected;
}

afterAll(async () => {
  for (const s of sockets.splice(0)) s.disconnect();
  await running?.close();
  data.remove();
});

describe('consumer group settings of a node', () => {
  it('tells members the configured heartbeat interval, uses the first configured assignor and refuses a member past the size limit', async () => {
    running = await startApp({
      DATA_DIR: data.dir,
      GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '1234',
      GROUP_CONSUMER_ASSIGNORS: 'range,uniform',
      GROUP_CONSUMER_MAX_SIZE: '1',
    });
    await request(running.url).post('/v1/topics').send({ name: 'orders', partitions: 2 }).expect(201);

    const first = await heartbeat(await socket(), 'member-a');
    expect(first).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 1234 });
    const described = await emit(await socket(), 'ConsumerGroupDescribe', { groupIds: ['configured'] });
    expect(described.groups[0]).toMatchObject({ errorCode: 0, assignorName: 'range' });

    const second = await heartbeat(await socket(), 'member-b');
    expect(second.errorCode).toBe(81); // GROUP_MAX_SIZE_REACHED
  });

  it('does not start with a heartbeat interval outside its bounds, saying which variable and why', async () => {
    await expect(startApp({ DATA_DIR: data.dir, GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '500' })).rejects.toThrow(
      'GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=500 must be between GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS=1000 and GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS=15000',
    );
  });

  it('does not start with an assignor name that is neither built in nor a plugin', async () => {
    const other = tempDataDir('cohort-cg-config-assignor-');
    try {
      await expect(startApp({ DATA_DIR: other.dir, GROUP_CONSUMER_ASSIGNORS: 'uniform,sticky' })).rejects.toThrow(
        'GROUP_CONSUMER_ASSIGNORS="uniform,sticky": no consumer group assignor is named "sticky"',
      );
    } finally {
      other.remove();
    }
  });

  it('answers ConsumerGroupHeartbeat UNSUPPORTED_VERSION on a node started with only the classic protocol', async () => {
    const other = tempDataDir('cohort-cg-config-classic-');
    const classicOnly = await startApp({ DATA_DIR: other.dir, GROUP_COORDINATOR_REBALANCE_PROTOCOLS: 'classic' });
    try {
      const client = await connect(classicOnly.url);
      sockets.push(client);
      const refused = await emit(client, 'ConsumerGroupHeartbeat', {
        groupId: 'configured',
        memberId: 'member-a',
        memberEpoch: 0,
        subscribedTopicNames: ['orders'],
        topicPartitions: [],
      } as P.ConsumerGroupHeartbeatRequest);
      expect(refused.errorCode).toBe(35); // UNSUPPORTED_VERSION
    } finally {
      await classicOnly.close();
      other.remove();
    }
  });
});
