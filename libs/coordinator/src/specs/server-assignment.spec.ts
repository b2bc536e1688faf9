import type { MemberAssignment } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { ServerAssignor } from '../ports/server-assignor.port';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/** Deals every partition of every subscribed topic round-robin over the members, sorted by member id. */
const dealer: ServerAssignor = {
  name: 'dealer',
  assign(cluster, members) {
    const sorted = [...members].sort((a, b) => (a.memberId < b.memberId ? -1 : 1));
    const out: Record<string, MemberAssignment> = Object.fromEntries(
      sorted.map((m) => [m.memberId, { partitions: [] }]),
    );
    let i = 0;
    for (const topic of Object.keys(cluster.partitionsPerTopic).sort()) {
      for (let p = 0; p < cluster.partitionsPerTopic[topic]; p++) {
        const member = sorted[i++ % sorted.length];
        const entry = out[member.memberId].partitions.find((tp) => tp.topic === topic);
        if (entry) entry.partitions.push(p);
        else out[member.memberId].partitions.push({ topic, partitions: [p] });
      }
    }
    return out;
  },
};

let failNext: string | null = null;
const flaky: ServerAssignor = {
  name: 'flaky',
  assign(cluster, members) {
    if (failNext === 'throw') {
      failNext = null;
      throw new Error('backend unavailable');
    }
    if (failNext === 'ghost-topic') {
      failNext = null;
      return { [members[0].memberId]: { partitions: [{ topic: 'ghost', partitions: [0] }] } };
    }
    if (failNext === 'out-of-range') {
      failNext = null;
      return { [members[0].memberId]: { partitions: [{ topic: 'orders', partitions: [4] }] } };
    }
    if (failNext === 'duplicate') {
      failNext = null;
      return Object.fromEntries(
        members.map((m) => [m.memberId, { partitions: [{ topic: 'orders', partitions: [0] }] }]),
      );
    }
    return dealer.assign(cluster, members);
  },
};

describe('server-side assignment (docs/protocol.md)', () => {
  let h: CoordinatorHarness;
  let reported: [string, string][];
  beforeEach(async () => {
    failNext = null;
    reported = [];
    h = new CoordinatorHarness({
      assignors: [dealer, flaky],
      metrics: { onServerAssignment: (assignor, outcome) => reported.push([assignor, outcome]) },
    });
    await h.settle();
  });

  it('computes the assignment when the join phase ends, persists it, answers every JoinGroup with it after the commit, and the group is Stable', async () => {
    h.store.autoCommit = false;
    const a = await h.joinNew('g', { serverAssignor: 'dealer' });
    const b = await h.joinNew('g', { serverAssignor: 'dealer' });
    await h.advance(0);
    expect(a.join.done || b.join.done).toBe(false);
    h.store.commitAll();
    await h.settle();
    const [first, second] = [a, b].sort((x, y) => (x.memberId < y.memberId ? -1 : 1));
    expect(first.join.value).toMatchObject({
      errorCode: 0,
      generationId: 1,
      skipAssignment: true,
      assignment: { partitions: [{ topic: 'orders', partitions: [0, 2] }] },
    });
    expect(second.join.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [1, 3] }] });
    expect(reported).toEqual([['dealer', 'ok']]);
    expect((await h.describe('g')).groupState).toBe('Stable');
    const sync = h.sync('g', second.memberId, 1);
    await h.settle();
    expect(sync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [1, 3] }] });
    await h.restart();
    const described = await h.coordinator.describeGroup('g');
    expect(described.members.find((m) => m.memberId === first.memberId)!.assignment).toEqual({
      partitions: [{ topic: 'orders', partitions: [0, 2] }],
    });
  });

  it('members that do not all name the same assignor get the classic leader-side protocol', async () => {
    const a = await h.joinNew('g', { serverAssignor: 'dealer' });
    const b = await h.joinNew('g');
    await h.advance(0);
    expect(a.join.value.assignment).toBeUndefined();
    expect(b.join.value.skipAssignment).toBe(false);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
  });

  it('an unknown assignor is INCONSISTENT_GROUP_PROTOCOL; one for a non-consumer protocol INVALID_REQUEST', async () => {
    const unknown = await h.coordinator.joinGroup(h.joinRequest('g', { serverAssignor: 'nope' }), h.context());
    expect(unknown.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(unknown.errorMessage).toContain('registered: dealer, flaky');
    const connect = await h.coordinator.joinGroup(
      h.joinRequest('g', { serverAssignor: 'dealer', protocolType: 'connect' }),
      h.context(),
    );
    expect(connect.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it.each([
    ['throw', /failed: backend unavailable/],
    ['duplicate', /orders-0 is assigned to both/],
    // The members subscribe to 'ghost', which the topic registry does not know.
    ['ghost-topic', /got topic 'ghost', which does not exist/],
    ['out-of-range', /got orders-4, which does not exist/],
  ])(
    'an assignor that fails (%s) fails the rebalance cleanly: members get UNKNOWN_SERVER_ERROR, no generation starts, a rejoin retries',
    async (mode, message) => {
      const protocols = [{ name: 'range', metadata: { topics: ['orders', 'ghost'] } }];
      const a = await h.joinNew('g', { serverAssignor: 'flaky', protocols });
      const b = await h.joinNew('g', { serverAssignor: 'flaky', protocols });
      failNext = mode;
      await h.advance(0);
      expect(a.join.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
      expect(a.join.value.errorMessage).toMatch(message);
      expect(b.join.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
      expect(reported).toEqual([['flaky', 'failed']]);
      const described = await h.describe('g');
      expect(described.groupState).toBe('PreparingRebalance');
      expect(described.members).toHaveLength(2);
      expect(h.store.records(h.partitionOf('g'))).toEqual([]);
      const ra = h.join('g', a.memberId, { serverAssignor: 'flaky', protocols });
      const rb = h.join('g', b.memberId, { serverAssignor: 'flaky', protocols });
      await h.settle();
      expect(ra.value).toMatchObject({ errorCode: 0, generationId: 1 });
      expect(rb.value.assignment).toBeDefined();
    },
  );

  it('a subscribed topic that grows rebalances the group and the new partitions are assigned', async () => {
    const a = await h.joinNew('g', { serverAssignor: 'dealer' });
    await h.advance(0);
    expect(a.join.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [0, 1, 2, 3] }] });
    await h.topics.setPartitions('orders', 6);
    await h.settle();
    const rejoin = h.join('g', a.memberId, { serverAssignor: 'dealer' });
    await h.settle();
    expect(rejoin.value).toMatchObject({
      generationId: 2,
      assignment: { partitions: [{ topic: 'orders', partitions: [0, 1, 2, 3, 4, 5] }] },
    });
  });
});
