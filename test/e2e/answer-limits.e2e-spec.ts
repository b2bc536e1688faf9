import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { appPerFile } from '../support/app-per-file';
import { connect, request as emit } from '../support/socket-client';

jest.setTimeout(60_000);

/**
 * An answer too large to send. One member subscribing to 60,000 topic names (a 480 KB heartbeat, within
 * MAX_PAYLOAD_BYTES) and one ConsumerGroupDescribe naming its group 200 times asked for a 100 MB answer;
 * 1,500 times, for one longer than V8's longest string, whose RangeError took the node down.
 */
describe('answers too large to send (e2e)', () => {
  const app = appPerFile();
  const sockets: Socket[] = [];
  const socket = async (): Promise<Socket> => {
    const opened = await connect(app.url);
    sockets.push(opened);
    return opened;
  };
  afterEach(() => {
    for (const opened of sockets.splice(0)) opened.close();
  });

  it('answers INVALID_REQUEST naming the limit, keeps the connection and the node, and describes the group when asked once', async () => {
    const attacker = await socket();
    const subscribedTopicNames = Array.from({ length: 60_000 }, (_, i) => `n${i.toString(36)}`);
    const joined = await emit(attacker, 'ConsumerGroupHeartbeat', {
      groupId: 'fat',
      memberId: 'fat-member',
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      topicPartitions: [],
      subscribedTopicNames,
    } as P.ConsumerGroupHeartbeatRequest);
    expect(joined.errorCode).toBe(0);

    for (const times of [200, 1_500]) {
      const answer = await emit(attacker, 'ConsumerGroupDescribe', { groupIds: Array(times).fill('fat') }, 30_000);
      expect(answer).toMatchObject({ errorCode: 42, errorName: 'INVALID_REQUEST' });
      expect((answer as { errorMessage: string }).errorMessage).toContain('MAX_SOCKET_OUTPUT_BUFFER_BYTES');
    }
    // The same connection still works, and so does everyone else's.
    const once = await emit(attacker, 'ConsumerGroupDescribe', { groupIds: ['fat'] });
    expect(once.groups[0].members[0].subscribedTopicNames).toHaveLength(60_000);
    const canary = await socket();
    expect(await emit(canary, 'ListGroups', {})).toMatchObject({ errorCode: 0 });
    expect((await app.http().get('/health/live')).status).toBe(200);
  });
});
