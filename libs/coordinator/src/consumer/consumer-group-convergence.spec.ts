import { createServerRangeAssignor, createUniformAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness } from '@cohort/coordinator/testing';
import type { ConsumerGroupHeartbeatResponse } from './consumer-heartbeat.types';

// Members modelled as Kafka's consumer reconciles (drop what the assignment no longer holds, report
// what it owns), heartbeating in turn against the real uniform and range assignors, with the
// protocol's promise checked after every heartbeat: no partition is owned by two members at once,
// as the members themselves hold them, and no member epoch moves back.

const G = 'orders-app';

class ModelMember {
  epoch = 0;
  owned = new Map<string, Set<number>>();
  joined = false;

  constructor(
    readonly memberId: string,
    readonly topics: string[],
    readonly serverAssignor?: string,
  ) {}

  heartbeat(h: ConsumerGroupHarness): ConsumerGroupHeartbeatResponse {
    const topicPartitions = [...this.owned].map(([topic, ps]) => ({ topic, partitions: [...ps] }));
    const response = h.heartbeat(
      this.joined
        ? { groupId: G, memberId: this.memberId, memberEpoch: this.epoch, topicPartitions }
        : {
            groupId: G,
            memberId: this.memberId,
            memberEpoch: 0,
            rebalanceTimeoutMs: 60_000,
            subscribedTopicNames: this.topics,
            serverAssignor: this.serverAssignor,
            topicPartitions: [],
          },
    ).response;
    expect(response.errorCode).toBe(0);
    expect(response.memberEpoch).toBeGreaterThanOrEqual(this.epoch);
    this.joined = true;
    this.epoch = response.memberEpoch;
    // The assignment replaces what the member owns: partitions left out are revoked, new ones taken.
    if (response.assignment)
      this.owned = new Map(
        response.assignment.topicPartitions.map(({ topic, partitions }) => [topic, new Set(partitions)]),
      );
    return response;
  }

  count(): number {
    let n = 0;
    for (const set of this.owned.values()) n += set.size;
    return n;
  }
}

function assertNoPartitionOwnedTwice(members: ModelMember[]): void {
  const owners = new Map<string, string>();
  for (const m of members) {
    for (const [topic, ps] of m.owned) {
      for (const p of ps) {
        const key = `${topic}-${p}`;
        expect(owners.get(key)).toBeUndefined();
        owners.set(key, m.memberId);
      }
    }
  }
}

/** Every member heartbeats in turn until a whole round changes nothing. */
function converge(h: ConsumerGroupHarness, members: ModelMember[]): number {
  for (let round = 1; round <= 20; round++) {
    let changed = false;
    for (const m of members) {
      const before = JSON.stringify([m.epoch, [...m.owned].map(([t, s]) => [t, [...s]])]);
      m.heartbeat(h);
      assertNoPartitionOwnedTwice(members);
      if (JSON.stringify([m.epoch, [...m.owned].map(([t, s]) => [t, [...s]])]) !== before) changed = true;
    }
    if (!changed) return round;
  }
  throw new Error('the group did not converge in 20 rounds');
}

describe('a consumer group converging with the real server assignors', () => {
  it('spreads a topic evenly with the uniform assignor as members join, as the topic grows and as one leaves', () => {
    const h = new ConsumerGroupHarness({
      assignors: [createUniformAssignor(), createServerRangeAssignor()],
      topics: { orders: 6 },
    });
    const members = [
      new ModelMember('a', ['orders']),
      new ModelMember('b', ['orders']),
      new ModelMember('c', ['orders']),
    ];
    converge(h, members);
    const group = h.manager.group(G)!;
    expect(group.state).toBe('Stable');
    expect(members.map((m) => m.count())).toEqual([2, 2, 2]);

    // The topic grows: the next heartbeat sees the new metadata, and the new partitions are shared out.
    const epoch = group.groupEpoch;
    h.topics.orders = 12;
    converge(h, members);
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(members.map((m) => m.count())).toEqual([4, 4, 4]);

    // One member leaves: the others take its partitions over.
    h.heartbeat({ groupId: G, memberId: 'c', memberEpoch: -1 });
    const rest = members.slice(0, 2);
    members[2].owned.clear();
    converge(h, rest);
    expect(rest.map((m) => m.count())).toEqual([6, 6]);
    expect(group.state).toBe('Stable');
    expect(h.reloaded().get(G)).toEqual(group);
  });

  it('uses the assignor the members ask for: range gives contiguous ranges', () => {
    const h = new ConsumerGroupHarness({
      assignors: [createUniformAssignor(), createServerRangeAssignor()],
      topics: { orders: 4 },
    });
    const members = [new ModelMember('a', ['orders'], 'range'), new ModelMember('b', ['orders'], 'range')];
    converge(h, members);
    expect([...members[0].owned.get('orders')!].sort()).toEqual([0, 1]);
    expect([...members[1].owned.get('orders')!].sort()).toEqual([2, 3]);
  });
});

describe('a topic that grows under a consumer group', () => {
  it('moves the group to a new epoch and target at once, naming the members to tell, before any of them heartbeats', () => {
    const h = new ConsumerGroupHarness({ assignors: [createUniformAssignor()], topics: { orders: 4 } });
    const members = [new ModelMember('a', ['orders']), new ModelMember('b', ['orders'])];
    converge(h, members);
    const group = h.manager.group(G)!;
    const epoch = group.groupEpoch;

    h.topics.orders = 8;
    let moved: { groupId: string; memberIds: string[] }[] = [];
    h.step(() => (moved = h.manager.onTopicChanged('orders')));
    expect(moved).toEqual([{ groupId: G, memberIds: ['a', 'b'] }]);
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(group.assignmentEpoch).toBe(epoch + 1);
    expect(h.timerWrites).toHaveLength(1);
    // A topic nobody subscribes to, or no change at all, moves nothing.
    h.step(() => (moved = h.manager.onTopicChanged('orders')));
    expect(moved).toEqual([]);
    h.step(() => (moved = h.manager.onTopicChanged('payments')));
    expect(moved).toEqual([]);

    // One heartbeat each and the members hold the new partitions: no second epoch bump is needed.
    for (const m of members) m.heartbeat(h);
    expect(members.map((m) => m.count())).toEqual([4, 4]);
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(group.state).toBe('Stable');
  });
});
