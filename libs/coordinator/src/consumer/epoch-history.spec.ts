import { ConsumerGroupHarness, MockConsumerAssignor } from '@cohort/coordinator/testing';
import { G, join } from '../../testing/consumer-heartbeat-fixtures';
import { consumerRebalanceViews } from '../operations/consumer-group-views';

// The epoch history of a consumer group (REST `GET /v1/groups/:groupId/rebalances`): each group epoch
// bump with its reason, and when every member held its target, on the virtual-clock harness.

const TOPICS = { foo: 6 };

function setup(historySize?: number) {
  const assignor = new MockConsumerAssignor('range');
  const bumps: [string, string][] = [];
  const converged: [string, number][] = [];
  const h = new ConsumerGroupHarness({
    assignors: [assignor],
    topics: TOPICS,
    historySize,
    metrics: {
      onConsumerEpochBump: (_groupId, reason) => bumps.push([_groupId, reason]),
      onConsumerGroupConverged: (_groupId, reason, ms) => converged.push([reason, ms]),
    },
  });
  return { h, assignor, bumps, converged };
}

const owned = (partitions: number[]) => [{ topic: 'foo', partitions }];
const joinFoo = (memberId: string) => join(memberId, { subscribedTopicNames: ['foo'] });

/** m1 alone on foo at t0; m2 joins at t0+1000, m1 revokes, m2 takes its half at t0+2000. */
function twoJoins(h: ConsumerGroupHarness, assignor: MockConsumerAssignor) {
  const t0 = h.clock.now();
  assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
  h.heartbeat(joinFoo('m1'));
  h.advance(1000);
  assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2] }, m2: { foo: [3, 4, 5] } });
  expect(h.heartbeat(joinFoo('m2')).response.memberEpoch).toBe(2);
  expect(h.manager.group(G)!.state).toBe('Reconciling');
  h.advance(500);
  const revoking = h.heartbeat({
    groupId: G,
    memberId: 'm1',
    memberEpoch: 1,
    topicPartitions: owned([0, 1, 2, 3, 4, 5]),
  });
  expect(revoking.response.assignment).toEqual({ topicPartitions: owned([0, 1, 2]) });
  h.advance(300);
  expect(
    h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1, topicPartitions: owned([0, 1, 2]) }).response.memberEpoch,
  ).toBe(2);
  h.advance(200);
  const m2 = h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 2, topicPartitions: [] });
  expect(m2.response.assignment).toEqual({ topicPartitions: owned([3, 4, 5]) });
  expect(h.manager.group(G)!.state).toBe('Stable');
  return t0;
}

describe('consumer group epoch history', () => {
  it('records each bump with its reason and member, and converges when the last member holds its target', () => {
    const { h, assignor, bumps, converged } = setup();
    const t0 = twoJoins(h, assignor);
    expect(consumerRebalanceViews(h.manager.group(G)!)).toEqual([
      {
        generationId: 2,
        groupEpoch: 2,
        reason: 'member-joined',
        memberId: 'm2',
        startedAt: t0 + 1000,
        completedAt: t0 + 2000,
        durationMs: 1000,
        members: 2,
        protocol: null,
        outcome: 'converged',
      },
      expect.objectContaining({ groupEpoch: 1, memberId: 'm1', startedAt: t0, durationMs: 0, outcome: 'converged' }),
    ]);
    expect(bumps).toEqual([
      [G, 'member-joined'],
      [G, 'member-joined'],
    ]);
    expect(converged).toEqual([
      ['member-joined', 0],
      ['member-joined', 1000],
    ]);
  });

  it('is rebuilt from the log alone, as a coordinator taking the partition over shows it', () => {
    const { h, assignor } = setup();
    twoJoins(h, assignor);
    expect(h.reloaded().get(G)!.history.entries).toEqual(h.manager.group(G)!.history.entries);
    // Compaction keeps the last epoch record of the group only: it carries the whole history.
    const lastEpochRecord = h.log.filter((r) => r.key.toString().startsWith('[3,')).pop()!;
    const compacted = new ConsumerGroupHarness({ assignors: [assignor], topics: TOPICS });
    compacted.replay([lastEpochRecord]);
    expect(compacted.groups.get(G)!.history.entries).toEqual(h.manager.group(G)!.history.entries);
  });

  it('names leaves, fencing, subscription and topic changes, and marks a bump a later one superseded', () => {
    const { h, assignor, bumps } = setup();
    twoJoins(h, assignor);
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: -1 });
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5], bar: [0] } });
    h.topics.bar = 1;
    h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 2, subscribedTopicNames: ['foo', 'bar'] });
    h.topics.foo = 7;
    h.manager.onTopicChanged('foo');
    h.advance(45_001); // m1 stops heartbeating: fenced
    expect(bumps.map(([, reason]) => reason)).toEqual([
      'member-joined',
      'member-joined',
      'member-left',
      'subscription-changed',
      'topic-metadata-changed',
      'member-fenced',
    ]);
    const views = consumerRebalanceViews(h.manager.group(G)!);
    expect(views.map((v) => [v.groupEpoch, v.reason, v.outcome])).toEqual([
      [6, 'member-fenced', 'converged'], // the group is Empty: nobody has anything left to reach
      [5, 'topic-metadata-changed', 'superseded'], // m1 never heartbeated again to take foo-6
      [4, 'subscription-changed', 'converged'],
      [3, 'member-left', 'superseded'], // no heartbeat computed its target before m1 changed its subscription
      [2, 'member-joined', 'converged'],
      [1, 'member-joined', 'converged'],
    ]);
    expect(views[0]).toMatchObject({ memberId: 'm1', members: 0 });
    expect(views[1]).toMatchObject({ memberId: null, members: 1 });
  });

  it('keeps the last `rebalanceHistorySize` bumps', () => {
    const { h, assignor } = setup(2);
    twoJoins(h, assignor);
    h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: -1 });
    expect(h.manager.group(G)!.history.entries.map((e) => e.groupEpoch)).toEqual([2, 3]);
    expect(
      h
        .reloaded()
        .get(G)!
        .history.entries.map((e) => e.groupEpoch),
    ).toEqual([2, 3]);
  });

  it('takes a bump back with the write that failed, and counts nothing for it', () => {
    const { h, assignor, bumps } = setup();
    twoJoins(h, assignor);
    const before = h.manager.group(G)!.history.entries;
    h.failNextWrite = true;
    h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: -1 });
    expect(h.manager.group(G)!.history.entries).toEqual(before);
    expect(bumps).toHaveLength(2);
  });
});
