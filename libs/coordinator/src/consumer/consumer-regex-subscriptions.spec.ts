import { createServerRangeAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness, MockConsumerAssignor } from '@cohort/coordinator/testing';
import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from './consumer-heartbeat.types';

// Regex subscriptions (KIP-848, Kafka's GroupMetadataManagerTest regex cases as far as they fit a
// coordinator that resolves a pattern against its topic registry at once, where Kafka resolves on a
// background thread): RE2 patterns, whole-name matches, the union with topic names, new topics picked
// up without any member asking, and 128 INVALID_REGULAR_EXPRESSION for a pattern RE2 refuses.

const G = 'regex-group';

function join(memberId: string, extra: Partial<ConsumerGroupHeartbeatRequest>): ConsumerGroupHeartbeatRequest {
  return { groupId: G, memberId, memberEpoch: 0, rebalanceTimeoutMs: 5000, topicPartitions: [], ...extra };
}

function assigned(response: ConsumerGroupHeartbeatResponse): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const { topic, partitions } of response.assignment?.topicPartitions ?? [])
    out[topic] = [...partitions].sort((a, b) => a - b);
  return out;
}

function rangeHarness(topics: Record<string, number>): ConsumerGroupHarness {
  return new ConsumerGroupHarness({ assignors: [createServerRangeAssignor()], topics });
}

describe('regex subscriptions of a consumer group (Kafka GroupMetadataManagerTest)', () => {
  it('assigns a member subscribing by regex alone the partitions of every topic whose whole name matches', () => {
    const h = rangeHarness({ foo: 2, foobar: 1, bar: 3, xfoo: 1 });
    const { response } = h.heartbeat(join('m1', { subscribedTopicRegex: 'foo.*' }));
    expect(response.errorCode).toBe(0);
    expect(response.memberEpoch).toBe(1);
    // `xfoo` contains a match but is not one: Kafka matches the whole name (`Matcher.matches`).
    expect(assigned(response)).toEqual({ foo: [0, 1], foobar: [0] });
    expect(h.groups.get(G)!.state).toBe('Stable');
  });

  it('subscribes a member with both names and a regex to their union', () => {
    const assignor = new MockConsumerAssignor('range');
    const h = new ConsumerGroupHarness({ assignors: [assignor], topics: { foo: 2, foobar: 1, bar: 3 } });
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1], foobar: [0], bar: [0, 1, 2] } });
    const { response } = h.heartbeat(join('m1', { subscribedTopicNames: ['bar'], subscribedTopicRegex: 'foo.*' }));
    expect(response.errorCode).toBe(0);
    expect(assignor.calls).toHaveLength(1);
    expect([...assignor.calls[0].members[0].subscribedTopics].sort()).toEqual(['bar', 'foo', 'foobar']);
  });

  it('answers a pattern RE2 refuses with 128 INVALID_REGULAR_EXPRESSION naming it, and writes nothing', () => {
    const h = rangeHarness({ foo: 2 });
    const refused = h.heartbeat(join('m1', { subscribedTopicRegex: '[' }));
    expect(refused.response).toMatchObject({ errorCode: 128, errorName: 'INVALID_REGULAR_EXPRESSION' });
    expect(refused.response.errorMessage).toContain('SubscribedTopicRegex `[` is not a valid regular expression');
    expect(refused.records).toEqual([]);
    expect(h.groups.get(G)).toBeUndefined();

    // A member already in the group keeps its subscription and partitions when it sends a bad pattern.
    const joined = h.heartbeat(join('m1', { subscribedTopicRegex: 'f.*' })).response;
    const before = h.log.length;
    const bad = h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: joined.memberEpoch, subscribedTopicRegex: '(' });
    expect(bad.response.errorCode).toBe(128);
    expect(h.log.length).toBe(before);
    expect(h.groups.get(G)!.member('m1')!.subscribedTopicRegex).toBe('f.*');
  });

  it('uses RE2 semantics: a backreference is refused, and a pattern that backtracks exponentially elsewhere is matched', () => {
    const h = rangeHarness({ ['a'.repeat(60) + '!']: 1, aaa: 1 });
    expect(h.heartbeat(join('m1', { subscribedTopicRegex: '(a)\\1' })).response.errorCode).toBe(128);
    const { response } = h.heartbeat(join('m2', { subscribedTopicRegex: '(a+)+' }));
    expect(response.errorCode).toBe(0);
    expect(assigned(response)).toEqual({ aaa: [0] });
  });

  it('moves the group epoch and the partitions when a member changes its regex (testConsumerGroupMemberJoinsWithUpdatedRegex)', () => {
    const h = rangeHarness({ foo: 2, bar: 1 });
    const first = h.heartbeat(join('m1', { subscribedTopicRegex: 'foo' })).response;
    expect(assigned(first)).toEqual({ foo: [0, 1] });
    const group = h.groups.get(G)!;
    const epoch = group.groupEpoch;

    // The new pattern: foo's partitions are revoked first, then bar's assigned.
    const revoke = h.heartbeat({
      groupId: G,
      memberId: 'm1',
      memberEpoch: first.memberEpoch,
      subscribedTopicRegex: 'bar',
      topicPartitions: [{ topic: 'foo', partitions: [0, 1] }],
    }).response;
    expect(group.groupEpoch).toBe(epoch + 1);
    expect(assigned(revoke)).toEqual({});
    const next = h.heartbeat({
      groupId: G,
      memberId: 'm1',
      memberEpoch: revoke.memberEpoch,
      topicPartitions: [],
    }).response;
    expect(assigned(next)).toEqual({ bar: [0] });
  });

  it('assigns a topic created later that matches the regex without any member asking, and ignores one that does not', () => {
    const h = rangeHarness({ 'orders-eu': 2 });
    const first = h.heartbeat(join('m1', { subscribedTopicRegex: 'orders-.*' })).response;
    expect(assigned(first)).toEqual({ 'orders-eu': [0, 1] });
    const group = h.groups.get(G)!;
    const epoch = group.groupEpoch;

    h.topics.audit = 1;
    let moved: { groupId: string; memberIds: string[] }[] = [];
    h.step(() => (moved = h.manager.onTopicChanged('audit')));
    expect(moved).toEqual([]);
    expect(group.groupEpoch).toBe(epoch);

    h.topics['orders-us'] = 3;
    h.step(() => (moved = h.manager.onTopicChanged('orders-us')));
    expect(moved).toEqual([{ groupId: G, memberIds: ['m1'] }]);
    expect(group.groupEpoch).toBe(epoch + 1);
    const next = h.heartbeat({
      groupId: G,
      memberId: 'm1',
      memberEpoch: first.memberEpoch,
      topicPartitions: [{ topic: 'orders-eu', partitions: [0, 1] }],
    }).response;
    expect(assigned(next)).toEqual({ 'orders-eu': [0, 1], 'orders-us': [0, 1, 2] });
  });

  it('counts regex-matched topics as subscribed, also after the group is reloaded from its records', () => {
    const h = rangeHarness({ foo: 2, bar: 1 });
    h.heartbeat(join('m1', { subscribedTopicRegex: 'fo+' }));
    expect(h.groups.get(G)!.isSubscribedToTopic('foo')).toBe(true);
    expect(h.groups.get(G)!.isSubscribedToTopic('bar')).toBe(false);
    const reloaded = h.reloaded().get(G)!;
    expect(reloaded.isSubscribedToTopic('foo')).toBe(true);
    expect(reloaded.isSubscribedToTopic('bar')).toBe(false);
  });

  it('drops the regex topics of a member who leaves from the group subscription', () => {
    const h = rangeHarness({ foo: 2, bar: 1 });
    h.heartbeat(join('m1', { subscribedTopicRegex: 'foo' }));
    const m2 = h.heartbeat(join('m2', { subscribedTopicNames: ['bar'] })).response;
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: -1 }).response.errorCode).toBe(0);
    const group = h.groups.get(G)!;
    expect(group.isSubscribedToTopic('foo')).toBe(false);
    expect(group.subscribedRegexes.size).toBe(0);
    expect(m2.errorCode).toBe(0);
  });
});
