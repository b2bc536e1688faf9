import { PushEvent } from '@cohort/protocol';
import type { CohortServer } from './cohort-socket';
import { SocketPushSink } from './socket-push-sink';

/** A socket.io server that records each emit: the rooms it went to and the event. */
function recordingServer(log: string[]): { server: CohortServer; emits: { rooms: string[]; event: string }[] } {
  const emits: { rooms: string[]; event: string }[] = [];
  const server = {
    to: (rooms: string[]) => ({
      emit: (event: string) => {
        emits.push({ rooms, event });
        log.push(`push to ${rooms.length}`);
        return true;
      },
    }),
  } as unknown as CohortServer;
  return { server, emits };
}

async function untilIdle(sink: SocketPushSink): Promise<void> {
  while (sink.pacer.backlog > 0) await new Promise((done) => setImmediate(done));
}

describe('SocketPushSink', () => {
  it('pushes to a few members at once when nothing waits', () => {
    const sink = new SocketPushSink();
    const log: string[] = [];
    const { server, emits } = recordingServer(log);
    sink.attach(server);
    sink.coordinatorMoved(['a', 'b'], { groupId: 'g' });
    expect(emits).toEqual([{ rooms: ['a', 'b'], event: PushEvent.CoordinatorMoved }]);
  });

  it('pushes to many members in slices of a turn, behind the answers already due', async () => {
    const sink = new SocketPushSink();
    const log: string[] = [];
    const { server, emits } = recordingServer(log);
    sink.attach(server);
    const perTurn = sink.pacer.perTurn;
    // Answers that fill this turn and one more that has to wait: the push must wait behind it.
    for (let i = 0; i <= perTurn; i++) sink.pacer.write(1, () => log.push('answer'));
    const members = Array.from({ length: 2 * perTurn + 200 }, (_, i) => `socket-${i}`);
    sink.rebalanceInProgress(members, { groupId: 'g', generationId: 3, reason: 'a member joined' });
    expect(emits).toHaveLength(0);
    await untilIdle(sink);
    expect(emits.map((emit) => emit.rooms.length)).toEqual([perTurn, perTurn, 200]);
    expect(emits.flatMap((emit) => emit.rooms)).toEqual(members);
    expect(emits.every((emit) => emit.event === PushEvent.RebalanceInProgress)).toBe(true);
    expect(log.indexOf(`push to ${perTurn}`)).toBe(perTurn + 1);
  });

  it('writes a HeartbeatNow as one encoded event packet on the member socket’s connection, in the pacer’s order', async () => {
    const written: string[] = [];
    const conn = {
      readyState: 'open',
      write: (packet: string) => written.push(packet),
    };
    const server = { sockets: { sockets: new Map([['s1', { client: { conn } }]]) } } as unknown as CohortServer;
    const sink = new SocketPushSink();
    sink.attach(server);
    const push = { groupId: 'g', memberEpoch: 4, reason: 'target assignment changed' };
    sink.heartbeatNow('s1', push);
    expect(written).toEqual([`2${JSON.stringify([PushEvent.HeartbeatNow, push])}`]);
    // Behind the answers already due; a socket gone by its turn gets nothing.
    for (let i = 0; i <= sink.pacer.perTurn; i++) sink.pacer.write(1, () => undefined);
    sink.heartbeatNow('s1', push);
    sink.heartbeatNow('gone', push);
    expect(written).toHaveLength(1);
    await untilIdle(sink);
    expect(written).toHaveLength(2);
  });

  it('drops pushes before the gateway is attached', () => {
    const sink = new SocketPushSink();
    expect(() => sink.rebalanceInProgress(['a'], { groupId: 'g', generationId: 1, reason: 'r' })).not.toThrow();
    expect(sink.pacer.backlog).toBe(0);
  });
});
