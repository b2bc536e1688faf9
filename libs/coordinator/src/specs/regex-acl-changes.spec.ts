import { createServerRangeAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import type { TopicAccessPort } from '@cohort/coordinator/ports/topic-access.port';

// A regex member is given only the matched topics its principal may DESCRIBE. When the ACLs change,
// the coordinator moves its group at once and tells the member to heartbeat now, as a topic creation
// does, instead of leaving the new topics for the member's next heartbeat interval.

/** ACL bindings the test changes, telling their listeners as the app's authorizer does. */
class Acls implements TopicAccessPort {
  private readonly allowed = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private changes = 0;

  grant(principal: string, topic: string): void {
    this.allowed.add(`${principal}\u0000${topic}`);
    this.changes += 1;
    for (const listener of this.listeners) listener();
  }

  canDescribeTopic(principal: string, _host: string, topic: string): boolean {
    return this.allowed.has(`${principal}\u0000${topic}`);
  }

  version(): number {
    return this.changes;
  }

  onChanged(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }
}

describe('an ACL change for a regex subscription', () => {
  it('moves the group at once and tells the member whose topics changed to heartbeat now', async () => {
    const acls = new Acls();
    acls.grant('User:alice', 'orders-a');
    const h = new CoordinatorHarness({
      topics: [
        { name: 'orders-a', partitions: 2 },
        { name: 'orders-b', partitions: 2 },
      ],
      consumerAssignors: [createServerRangeAssignor()],
      topicAccess: acls,
    });
    await h.settle();
    const context = {
      clientId: 'client',
      clientHost: '/127.0.0.1',
      connectionId: 'conn-alice',
      aclCaller: { principal: 'User:alice', host: '/127.0.0.1' },
    };
    let owned: P.TopicPartitions[] = [];
    let epoch = 0;
    const heartbeat = async (more: Partial<P.ConsumerGroupHeartbeatRequest> = {}) => {
      const response = await h.coordinator.consumerGroupHeartbeat(
        { groupId: 'cg', memberId: 'alice', memberEpoch: epoch, topicPartitions: owned, ...more },
        context,
      );
      expect(response.errorCode).toBe(0);
      epoch = response.memberEpoch;
      if (response.assignment) owned = response.assignment.topicPartitions;
      return response;
    };
    await heartbeat({ subscribedTopicRegex: 'orders-.*', rebalanceTimeoutMs: 60_000 });
    await heartbeat();
    expect(owned).toEqual([{ topic: 'orders-a', partitions: [0, 1] }]);
    const groupEpoch = epoch;

    acls.grant('User:alice', 'orders-b');
    await h.settle();
    expect(h.push.heartbeatNows).toEqual([
      { connectionId: 'conn-alice', push: expect.objectContaining({ groupId: 'cg', reason: 'topic access changed' }) },
    ]);
    // The member heeds the push: its next heartbeat carries the new topic, at the moved epoch.
    await heartbeat();
    expect(epoch).toBe(groupEpoch + 1);
    expect(owned.map((tp) => tp.topic).sort()).toEqual(['orders-a', 'orders-b']);
  });
});

describe('OffsetDelete on a group of regex members', () => {
  it("keeps the offsets of a topic a member's regex gives it, and deletes those of a topic it matches but may not describe", async () => {
    const acls = new Acls();
    acls.grant('User:alice', 'orders-a');
    const h = new CoordinatorHarness({
      topics: [
        { name: 'orders-a', partitions: 1 },
        { name: 'orders-b', partitions: 1 },
      ],
      consumerAssignors: [createServerRangeAssignor()],
      topicAccess: acls,
    });
    await h.settle();
    const context = {
      clientId: 'client',
      clientHost: '/127.0.0.1',
      aclCaller: { principal: 'User:alice', host: '/127.0.0.1' },
    };
    for (const topic of ['orders-a', 'orders-b'])
      await h.coordinator.offsetCommit(
        {
          groupId: 'cg',
          generationId: -1,
          topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 7 }] }],
        },
        context,
      );
    const joined = await h.coordinator.consumerGroupHeartbeat(
      {
        groupId: 'cg',
        memberId: 'alice',
        memberEpoch: 0,
        subscribedTopicRegex: 'orders-.*',
        rebalanceTimeoutMs: 60_000,
        topicPartitions: [],
      },
      context,
    );
    expect(joined.errorCode).toBe(0);
    const deleted = await h.coordinator.offsetDelete({
      groupId: 'cg',
      topics: ['orders-a', 'orders-b'].map((name) => ({ name, partitions: [{ partitionIndex: 0 }] })),
    });
    expect(deleted.topics.map((t) => [t.name, t.partitions[0].errorCode])).toEqual([
      ['orders-a', 86], // GROUP_SUBSCRIBED_TO_TOPIC
      ['orders-b', 0],
    ]);
    const offsets = await h.fetch('cg', [
      { name: 'orders-a', partitionIndexes: [0] },
      { name: 'orders-b', partitionIndexes: [0] },
    ]);
    expect(offsets.topics.map((t) => [t.name, t.partitions[0].committedOffset])).toEqual([
      ['orders-a', 7],
      ['orders-b', -1],
    ]);
    // Once alice may describe orders-b, her regex gives it to her: it is subscribed again.
    acls.grant('User:alice', 'orders-b');
    await h.settle();
    const again = await h.coordinator.offsetDelete({
      groupId: 'cg',
      topics: [{ name: 'orders-b', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(again.topics[0].partitions[0].errorCode).toBe(86);
  });
});
