import { createServerRangeAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness } from '@cohort/coordinator/testing';
import type { TopicAccessPort } from '../ports/topic-access.port';
import type { MovedGroup } from './group-moves';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';

// Regex subscriptions filtered by DESCRIBE TOPIC (Kafka's KAFKA-18813), per member: two principals in
// one group share a pattern, each is given only the matched topics it may describe, also for a topic
// created later, after an ACL change, and after a restart that forgot who the members are.

const G = 'regex-acl-group';
const PATTERN = 'orders-.*';

/** An ACL table the test changes: principal → the topics it may describe. */
class Acls implements TopicAccessPort {
  private bindings = new Map<string, Set<string>>();
  private changes = 0;

  grant(principal: string, ...topics: string[]): void {
    const set = this.bindings.get(principal) ?? new Set<string>();
    for (const topic of topics) set.add(topic);
    this.bindings.set(principal, set);
    this.changes += 1;
  }

  revoke(principal: string, topic: string): void {
    this.bindings.get(principal)?.delete(topic);
    this.changes += 1;
  }

  canDescribeTopic(principal: string, _host: string, topic: string): boolean {
    return this.bindings.get(principal)?.has(topic) ?? false;
  }

  version(): number {
    return this.changes;
  }
}

const TOPICS = { 'orders-a': 2, 'orders-b': 2, 'orders-shared': 2, other: 1 };

function harness(acls: Acls, topics: Record<string, number> = TOPICS): ConsumerGroupHarness {
  return new ConsumerGroupHarness({ assignors: [createServerRangeAssignor()], topics, topicAccess: acls });
}

function aclsOfAliceAndBob(): Acls {
  const acls = new Acls();
  acls.grant('User:alice', 'orders-a', 'orders-shared', 'other');
  acls.grant('User:bob', 'orders-b', 'orders-shared');
  return acls;
}

/** The member's full heartbeat at its current epoch, owning what it was assigned (a join when it is new). */
function fullHeartbeat(h: ConsumerGroupHarness, memberId: string): ConsumerGroupHeartbeatRequest {
  const member = h.groups.get(G)?.member(memberId);
  return {
    groupId: G,
    memberId,
    memberEpoch: member?.memberEpoch ?? 0,
    rebalanceTimeoutMs: 5000,
    subscribedTopicNames: [],
    subscribedTopicRegex: PATTERN,
    topicPartitions: [...(member?.assignedPartitions ?? new Map<string, ReadonlySet<number>>())].map(
      ([topic, partitions]) => ({ topic, partitions: [...partitions] }),
    ),
  };
}

/** Heartbeats of every member in turn until none of them changes anything. */
function converge(h: ConsumerGroupHarness, members: Record<string, string>): void {
  for (let round = 0; round < 10; round++) {
    let wrote = false;
    for (const [memberId, principal] of Object.entries(members)) {
      const { response, records } = h.heartbeat(fullHeartbeat(h, memberId), principal);
      expect(response.errorCode).toBe(0);
      wrote ||= records.length > 0;
    }
    if (!wrote) return;
  }
  throw new Error('the group did not converge');
}

/** The topics of the member's target and of its assignment (what ConsumerGroupDescribe shows of it). */
function topicsShownBy(h: ConsumerGroupHarness, memberId: string): string[] {
  const group = h.groups.get(G)!;
  const member = group.member(memberId)!;
  return [...new Set([...group.targetAssignmentOf(memberId).keys(), ...member.assignedPartitions.keys()])].sort();
}

describe('regex subscriptions filtered by each member’s DESCRIBE TOPIC ACLs', () => {
  it('gives two principals sharing one pattern only the matched topics each may describe', () => {
    const h = harness(aclsOfAliceAndBob());
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    // orders-a only to alice, orders-b only to bob, orders-shared split; `other` does not match.
    expect(topicsShownBy(h, 'alice')).toEqual(['orders-a', 'orders-shared']);
    expect(topicsShownBy(h, 'bob')).toEqual(['orders-b', 'orders-shared']);
    const group = h.groups.get(G)!;
    expect([...group.targetAssignmentOf('alice').get('orders-a')!]).toEqual([0, 1]);
    expect([...group.targetAssignmentOf('bob').get('orders-b')!]).toEqual([0, 1]);
  });

  it('filters each member by its own principal when their joins run in one batch (one target for the turn)', () => {
    const h = harness(aclsOfAliceAndBob());
    const outcome = h.heartbeatBatch([fullHeartbeat(h, 'alice'), fullHeartbeat(h, 'bob')], ['User:alice', 'User:bob']);
    expect(outcome.answers.map((answer) => answer.response.errorCode)).toEqual([0, 0]);
    const group = h.groups.get(G)!;
    expect([...group.targetAssignmentOf('alice').keys()].sort()).toEqual(['orders-a', 'orders-shared']);
    expect([...group.targetAssignmentOf('bob').keys()].sort()).toEqual(['orders-b', 'orders-shared']);
  });

  it('gives a topic created later only to the members whose principal may describe it', () => {
    const acls = aclsOfAliceAndBob();
    const h = harness(acls);
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    acls.grant('User:bob', 'orders-new');
    h.topics['orders-new'] = 3;
    h.step(() => h.manager.onTopicChanged('orders-new'));
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    expect(topicsShownBy(h, 'alice')).toEqual(['orders-a', 'orders-shared']);
    expect(topicsShownBy(h, 'bob')).toEqual(['orders-b', 'orders-new', 'orders-shared']);
    expect([...h.groups.get(G)!.targetAssignmentOf('bob').get('orders-new')!]).toEqual([0, 1, 2]);
  });

  it('moves the group at the member’s next heartbeat when its ACLs change: a grant adds the topic, a revoke takes it away', () => {
    const acls = aclsOfAliceAndBob();
    const h = harness(acls);
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    const epoch = h.groups.get(G)!.groupEpoch;

    acls.grant('User:alice', 'orders-b');
    // A steady heartbeat (no fields) is enough to notice it.
    const alice = h.groups.get(G)!.member('alice')!;
    h.heartbeat({ groupId: G, memberId: 'alice', memberEpoch: alice.memberEpoch }, 'User:alice');
    expect(h.groups.get(G)!.groupEpoch).toBe(epoch + 1);
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    expect(h.groups.get(G)!.targetAssignmentOf('alice').has('orders-b')).toBe(true);

    acls.revoke('User:alice', 'orders-b');
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    expect(topicsShownBy(h, 'alice')).toEqual(['orders-a', 'orders-shared']);
    expect([...h.groups.get(G)!.targetAssignmentOf('bob').get('orders-b')!]).toEqual([0, 1]);

    // Nothing changed since: steady heartbeats write nothing.
    const before = h.log.length;
    for (const memberId of ['alice', 'bob']) {
      const member = h.groups.get(G)!.member(memberId)!;
      h.heartbeat({ groupId: G, memberId, memberEpoch: member.memberEpoch }, `User:${memberId}`);
    }
    expect(h.log.length).toBe(before);
  });

  it('moves the group as soon as the ACLs change, before any heartbeat, and names the members whose target changed', () => {
    const acls = aclsOfAliceAndBob();
    const h = harness(acls);
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    const epoch = h.groups.get(G)!.groupEpoch;
    let moved: MovedGroup[] = [];
    // A change that gives no regex member of the group another topic moves nothing.
    acls.grant('User:carol', 'orders-a');
    h.step(() => (moved = h.manager.onTopicAccessChanged()));
    expect(moved).toEqual([]);
    expect(h.groups.get(G)!.groupEpoch).toBe(epoch);

    acls.grant('User:alice', 'orders-b');
    h.step(() => (moved = h.manager.onTopicAccessChanged()));
    expect(moved).toHaveLength(1);
    expect(moved[0].groupId).toBe(G);
    expect(moved[0].memberIds).toContain('alice');
    const group = h.groups.get(G)!;
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(group.assignmentEpoch).toBe(epoch + 1);
    expect(group.targetAssignmentOf('alice').has('orders-b')).toBe(true);
    // The move is written: a replay of the log gives the same target.
    expect(h.reloaded().get(G)!.targetAssignmentOf('alice')).toEqual(group.targetAssignmentOf('alice'));
    // Nothing changed since: a second notice moves nothing.
    h.step(() => (moved = h.manager.onTopicAccessChanged()));
    expect(moved).toEqual([]);
    converge(h, { alice: 'User:alice', bob: 'User:bob' });
    expect(h.groups.get(G)!.groupEpoch).toBe(epoch + 1);
  });

  it('after a restart gives a member not heard from yet none of its pattern’s topics, and its own once it heartbeats', () => {
    const acls = aclsOfAliceAndBob();
    const h = harness(acls);
    converge(h, { alice: 'User:alice', bob: 'User:bob' });

    // A new leader loads the group from its records; it has not met the members' callers.
    const next = harness(acls, h.topics);
    next.replay(h.log);
    next.step(() => next.manager.onLoaded());
    // A topic every principal may describe appears before anyone heartbeats: the target is computed
    // while both callers are unknown, so neither member is given any of its pattern's topics.
    acls.grant('User:alice', 'orders-late');
    acls.grant('User:bob', 'orders-late');
    next.topics['orders-late'] = 1;
    next.step(() => next.manager.onTopicChanged('orders-late'));
    const group = next.groups.get(G)!;
    expect(group.targetAssignmentOf('alice').size).toBe(0);
    expect(group.targetAssignmentOf('bob').size).toBe(0);

    // Alice's first heartbeat after the reconnect (a full one) makes her known: she gets hers, none of bob's.
    next.heartbeat(fullHeartbeat(next, 'alice'), 'User:alice');
    converge(next, { alice: 'User:alice' });
    expect(topicsShownBy(next, 'alice')).toEqual(['orders-a', 'orders-late', 'orders-shared']);
    expect(group.targetAssignmentOf('bob').size).toBe(0);

    converge(next, { alice: 'User:alice', bob: 'User:bob' });
    expect(topicsShownBy(next, 'alice').every((t) => ['orders-a', 'orders-late', 'orders-shared'].includes(t))).toBe(
      true,
    );
    expect(topicsShownBy(next, 'bob').every((t) => ['orders-b', 'orders-late', 'orders-shared'].includes(t))).toBe(
      true,
    );
    expect([...group.targetAssignmentOf('bob').get('orders-b')!]).toEqual([0, 1]);
  });

  it('gives a static member taken over by another principal none of the topics only the previous one could describe', () => {
    const h = harness(aclsOfAliceAndBob());
    const join = (memberId: string) => ({ ...fullHeartbeat(h, memberId), instanceId: 'instance-1' });
    expect(h.heartbeat(join('alice-1'), 'User:alice').response.errorCode).toBe(0);
    converge(h, {});
    const alice = h.groups.get(G)!.member('alice-1')!;
    expect([...alice.assignedPartitions.keys()].sort()).toEqual(['orders-a', 'orders-shared']);
    // Alice's member leaves for now (-2), keeping its instance's partitions; bob's member takes the instance over.
    h.heartbeat({ groupId: G, memberId: 'alice-1', memberEpoch: -2, instanceId: 'instance-1' }, 'User:alice');
    const taken = h.heartbeat(join('bob-1'), 'User:bob').response;
    expect(taken.errorCode).toBe(0);
    const topics = (taken.assignment?.topicPartitions ?? []).map((tp) => tp.topic);
    expect(topics).not.toContain('orders-a');
    converge(h, { 'bob-1': 'User:bob' });
    expect(topicsShownBy(h, 'bob-1')).toEqual(['orders-b', 'orders-shared']);
  });

  it('gives a member whose heartbeat carries no caller none of its pattern’s topics while ACLs are on', () => {
    const h = harness(aclsOfAliceAndBob());
    const { response } = h.heartbeat(fullHeartbeat(h, 'anonymous'));
    expect(response.errorCode).toBe(0);
    expect(response.assignment?.topicPartitions ?? []).toEqual([]);
  });
});
