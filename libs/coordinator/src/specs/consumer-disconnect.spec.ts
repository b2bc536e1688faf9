import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness, joinOrders } from '@cohort/coordinator/testing';

/** Every partition a heartbeat answer assigns, as `topic-partition` strings. */
function owned(response: P.ConsumerGroupHeartbeatResponse | undefined): string[] {
  return (response?.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));
}

// Virtual time, but real CPU: twenty joins each recompute the group's target, slow on a loaded CI machine.
jest.setTimeout(30_000);

// docs/protocol.md: a consumer group member whose socket closes is fenced after MEMBER_DISCONNECT_GRACE_MS
// unless it heartbeats on a new connection first; a static member waits for its session timeout.
describe('a consumer group member whose connection closes', () => {
  const GRACE = 3_000;
  let h: CoordinatorHarness;
  const on = (connectionId: string) => ({ clientId: 'client', clientHost: '/127.0.0.1', connectionId });

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      config: { memberDisconnectGraceMs: GRACE },
    });
    await h.settle();
  });

  const beat = (memberId: string, connectionId: string, more: Partial<P.ConsumerGroupHeartbeatRequest> = {}) =>
    h.coordinator.consumerGroupHeartbeat(joinOrders(memberId, more), on(connectionId));

  const members = async () => (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0].members;

  it('is fenced once the grace has passed, and the member left behind is given its partitions', async () => {
    const a = await beat('member-a', 'conn-a');
    expect(owned(a)).toHaveLength(4);
    const b = await beat('member-b', 'conn-b');
    h.coordinator.connectionClosed('conn-a');
    await h.advance(GRACE - 1);
    expect(await members()).toHaveLength(2);
    await h.advance(1);
    expect((await members()).map((m) => m.memberId)).toEqual(['member-b']);
    const next = await beat('member-b', 'conn-b', { memberEpoch: b.memberEpoch });
    expect(owned(next)).toHaveLength(4);
    // A fenced member that comes back is told so, and nothing is kept for it.
    const late = await beat('member-a', 'conn-a2', { memberEpoch: a.memberEpoch });
    expect(late.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.shardOf('cg').consumerConnections.connectionOf('cg', 'member-a')).toBeUndefined();
  });

  it('keeps its membership when it heartbeats on a new connection within the grace', async () => {
    const a = await beat('member-a', 'conn-a');
    h.coordinator.connectionClosed('conn-a');
    await h.advance(GRACE / 2);
    const again = await beat('member-a', 'conn-a2', {
      memberEpoch: a.memberEpoch,
      topicPartitions: a.assignment!.topicPartitions,
    });
    expect(again.errorCode).toBe(0);
    await h.advance(GRACE * 2);
    const left = await members();
    expect(left.map((m) => [m.memberId, m.memberEpoch])).toEqual([['member-a', a.memberEpoch]]);
  });

  it('is a static member: it keeps its place until its session timeout', async () => {
    await beat('member-s', 'conn-s', { instanceId: 'instance-1' });
    h.coordinator.connectionClosed('conn-s');
    await h.advance(GRACE * 2);
    expect(await members()).toHaveLength(1);
  });

  it('leaves nothing behind in the connection index once fenced, however many member ids one connection churns through', async () => {
    for (let i = 0; i < 20; i++) await beat(`member-${i}`, 'long-lived');
    h.coordinator.connectionClosed('long-lived');
    await h.advance(GRACE);
    expect(h.shardOf('cg').consumerConnections.size).toBe(0);
    expect(await members()).toEqual([]);
  });
});
