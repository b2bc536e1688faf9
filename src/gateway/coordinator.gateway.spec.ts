import type { Socket } from 'socket.io-client';
import { RecordingNode } from '../../test/support/recording-node';
import { connect, nextPush, request } from '../../test/support/socket-client';
import { type RunningApp, startAppWithNode } from '../../test/support/test-app';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { SocketPushSink } from './socket-push-sink';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(30_000);

/**
 * The gateway's translation and validation over a real socket.io connection, with a node whose
 * coordinator only records calls: a bad payload must be answered 42 INVALID_REQUEST on its ack, name the
 * bad fields, reach nothing, and leave the socket usable.
 */
describe('CoordinatorGateway', () => {
  let node: RecordingNode;
  let running: RunningApp;
  let socket: Socket;

  beforeAll(async () => {
    node = new RecordingNode();
    running = await startAppWithNode(node, { MAX_PAYLOAD_BYTES: '65536' });
  });
  afterAll(() => running.close());
  beforeEach(async () => {
    socket = await connect(running.url, { clientId: 'spec-client' });
    node.calls.length = 0;
  });
  afterEach(() => socket.disconnect());

  const valid = {
    JoinGroup: {
      groupId: 'g',
      sessionTimeoutMs: 10000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: ['t'] } }],
    },
    SyncGroup: { groupId: 'g', generationId: 1, memberId: 'm', assignments: [] },
    Heartbeat: { groupId: 'g', generationId: 1, memberId: 'm' },
    LeaveGroup: { groupId: 'g', members: [{ memberId: 'm' }] },
    OffsetCommit: {
      groupId: 'g',
      generationId: 1,
      memberId: 'm',
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }],
    },
    OffsetFetch: { groupId: 'g', topics: null },
    OffsetDelete: { groupId: 'g', topics: [{ name: 't', partitions: [{ partitionIndex: 0 }] }] },
    DescribeGroups: { groups: ['g'] },
    ListGroups: {},
    DeleteGroups: { groupsNames: ['g'] },
  };

  it('forwards a valid request with the connection and its principal as context and acks the coordinator answer', async () => {
    const response = await request(socket, 'JoinGroup', valid.JoinGroup);
    expect(response).toMatchObject({ errorCode: 0, generationId: 1, memberId: 'm' });
    expect(node.requests()).toEqual([
      {
        method: 'joinGroup',
        args: [
          expect.objectContaining({ groupId: 'g', memberId: '' }),
          {
            clientId: 'spec-client',
            clientHost: expect.any(String),
            connectionId: socket.id,
            principal: 'User:ANONYMOUS',
          },
        ],
      },
    ]);
  });

  it.each(Object.entries(valid))('accepts a well-formed %s', async (event, payload) => {
    const response = await request(socket, event, payload);
    expect(response.errorCode).toBe(0);
    expect(node.requests()).toHaveLength(1);
  });

  const bad: [string, unknown, string[]][] = [
    ['JoinGroup', { ...valid.JoinGroup, sessionTimeoutMs: 'ten' }, ['sessionTimeoutMs']],
    ['JoinGroup', { ...valid.JoinGroup, sessionTimeoutMs: 1e20 }, ['sessionTimeoutMs']],
    ['JoinGroup', { groupId: 'g' }, ['sessionTimeoutMs', 'memberId', 'protocolType', 'protocols']],
    ['JoinGroup', { ...valid.JoinGroup, protocols: [{ name: 7 }] }, ['protocols.0.name', 'protocols.0.metadata']],
    ['JoinGroup', { ...valid.JoinGroup, groupInstanceId: '' }, ['groupInstanceId']],
    ['JoinGroup', { ...valid.JoinGroup, groupId: 'x'.repeat(5000) }, ['groupId']],
    [
      'SyncGroup',
      { ...valid.SyncGroup, generationId: 1.5, assignments: [{ memberId: 'm' }] },
      ['generationId', 'assignments.0.assignment'],
    ],
    ['Heartbeat', { groupId: ['g'], generationId: '1', memberId: null }, ['groupId', 'generationId', 'memberId']],
    ['LeaveGroup', { groupId: 'g', members: 'm' }, ['members']],
    [
      'OffsetCommit',
      {
        ...valid.OffsetCommit,
        topics: [{ name: 't', partitions: [{ partitionIndex: -1, committedOffset: 2 ** 64 }] }],
      },
      ['topics.0.partitions.0.partitionIndex', 'topics.0.partitions.0.committedOffset'],
    ],
    ['OffsetFetch', { groupId: 'g' }, ['topics']],
    [
      'OffsetFetch',
      { groupId: 'g', topics: [{ name: 't', partitionIndexes: ['0'] }], requireStable: 'yes' },
      ['topics.0.partitionIndexes', 'requireStable'],
    ],
    ['OffsetDelete', { groupId: 'g', topics: [{ name: 't' }] }, ['topics.0.partitions']],
    ['DescribeGroups', { groups: 'g' }, ['groups']],
    ['ListGroups', { statesFilter: [1] }, ['statesFilter']],
    ['DeleteGroups', {}, ['groupsNames']],
    ['FindCoordinator', { key: 'g', keyType: 1 }, ['keyType']],
    ['Metadata', { topics: 'all' }, ['topics']],
  ];

  it.each(bad)(
    'answers a malformed %s with INVALID_REQUEST naming the fields, and nothing else happens',
    async (event, payload, fields) => {
      const response = await request<{ errorCode: number; errorName: string; errorMessage: string }>(
        socket,
        event,
        payload,
      );
      expect(response.errorCode).toBe(42);
      expect(response.errorName).toBe('INVALID_REQUEST');
      for (const field of fields) expect(response.errorMessage).toContain(field);
      expect(node.requests()).toEqual([]);
      expect(socket.connected).toBe(true);
      // The same socket still works.
      expect((await request(socket, 'Heartbeat', valid.Heartbeat)).errorCode).toBe(0);
    },
  );

  it.each([
    ['a string', 'JoinGroup'],
    [42, 'SyncGroup'],
    [[1, 2], 'Heartbeat'],
    [undefined, 'OffsetCommit'],
    [null, 'LeaveGroup'],
  ])('answers a payload that is %p (%s) with INVALID_REQUEST', async (payload, event) => {
    const response = await request(socket, event, payload);
    expect(response).toMatchObject({ errorCode: 42, errorName: 'INVALID_REQUEST' });
    expect(node.requests()).toEqual([]);
    expect(socket.connected).toBe(true);
  });

  it('does not let a __proto__ key in a payload reach any prototype', async () => {
    const hostile = JSON.parse(
      '{"groupId":"g","generationId":1,"memberId":"m","__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    );
    expect((await request(socket, 'Heartbeat', hostile)).errorCode).toBe(0);
    const forwarded = node.requests()[0].args[0] as Record<string, unknown>;
    expect(forwarded.polluted).toBeUndefined();
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.keys(forwarded)).not.toContain('constructor');
    expect(forwarded).toMatchObject({ groupId: 'g', generationId: 1, memberId: 'm' });
  });

  it('closes only the connection that sends more than MAX_PAYLOAD_BYTES', async () => {
    const bystander = await connect(running.url);
    const closed = new Promise<string>((resolve) => socket.once('disconnect', (reason) => resolve(reason)));
    socket.emit('JoinGroup', { ...valid.JoinGroup, reason: 'x'.repeat(100_000) });
    await closed;
    expect(node.requests()).toEqual([]);
    expect((await request(bystander, 'Heartbeat', valid.Heartbeat)).errorCode).toBe(0);
    bystander.disconnect();
  });

  it('counts requests by event and Kafka error in the metrics', async () => {
    await request(socket, 'Heartbeat', { groupId: 'g' });
    await request(socket, 'JoinGroup', valid.JoinGroup);
    const text = await running.app.get(CohortMetrics).registry.metrics();
    expect(text).toMatch(
      /cohort_requests_total\{transport="socket.io",api="Heartbeat",error="INVALID_REQUEST"\} [1-9]/,
    );
    expect(text).toMatch(/cohort_requests_total\{transport="socket.io",api="JoinGroup",error="NONE"\} [1-9]/);
  });

  it('tells the coordinator when a socket closes', async () => {
    const id = socket.id;
    socket.disconnect();
    await waitFor(() => node.calls.some((call) => call.method === 'connectionClosed' && call.args[0] === id));
  });

  it('delivers coordinator pushes to the sockets of the members addressed', async () => {
    const other = await connect(running.url);
    const push = nextPush(socket, 'RebalanceInProgress');
    let otherGotOne = false;
    other.on('RebalanceInProgress', () => (otherGotOne = true));
    running.app
      .get(SocketPushSink)
      .rebalanceInProgress([socket.id!], { groupId: 'g', generationId: 3, reason: 'test' });
    expect(await push).toEqual({ groupId: 'g', generationId: 3, reason: 'test' });
    const moved = nextPush(socket, 'CoordinatorMoved');
    running.app.get(SocketPushSink).coordinatorMoved([socket.id!], { groupId: 'g' });
    expect(await moved).toEqual({ groupId: 'g' });
    expect(otherGotOne).toBe(false);
    other.disconnect();
  });

  it('refuses a connection whose auth.clientId is not a string', async () => {
    await expect(connect(running.url, { clientId: { nested: true } })).rejects.toThrow(/clientId/);
  });

  it('answers FindCoordinator with the partition of docs/protocol.md and this node', async () => {
    expect(await request(socket, 'FindCoordinator', { key: 'my-group' })).toEqual({
      errorCode: 0,
      nodeId: 0,
      host: '127.0.0.1',
      port: 1,
      url: 'http://127.0.0.1:1',
      partition: 12,
    });
  });

  it('answers Metadata from the topic registry, UNKNOWN_TOPIC_OR_PARTITION for an unknown topic', async () => {
    await node.topics.create('orders', 3);
    expect(await request(socket, 'Metadata', { topics: ['orders', 'nope'] })).toEqual({
      errorCode: 0,
      topics: [
        { name: 'orders', partitions: 3, errorCode: 0 },
        { name: 'nope', partitions: 0, errorCode: 3 },
      ],
      nodes: [{ nodeId: 0, url: 'http://127.0.0.1:1' }],
    });
    expect(await request(socket, 'Metadata', { topics: null })).toEqual({
      errorCode: 0,
      topics: [{ name: 'orders', partitions: 3, errorCode: 0 }],
      nodes: [{ nodeId: 0, url: 'http://127.0.0.1:1' }],
    });
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
