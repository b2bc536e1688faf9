import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import type { ShareLeaseOwner } from '../share/share-ports';

/** Every partition a heartbeat answer assigns, as `topic-partition` strings. */
function owned(response: P.ShareGroupHeartbeatResponse | undefined): string[] {
  return (response?.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));
}

class RecordingLeases implements ShareLeaseOwner {
  readonly released: string[] = [];
  releaseMember(groupId: string, memberId: string): void {
    this.released.push(`${groupId}/${memberId}`);
  }
  deleteGroup(): { records: []; restore: () => void } {
    return { records: [], restore: () => undefined };
  }
}

/**
 * The ShareGroupHeartbeats of one turn run together (handlers/share-heartbeat-queue.ts): each up to its
 * target in arrival order, then the group's target once, then each member takes its own.
 */
describe('share group heartbeats of one turn', () => {
  let h: CoordinatorHarness;
  let leases: RecordingLeases;

  beforeEach(async () => {
    h = new CoordinatorHarness({ topics: [{ name: 'jobs', partitions: 6 }], autoCommit: true });
    await h.settle();
    leases = new RecordingLeases();
    h.shardOf('sg').shareLeases = leases;
  });

  const heartbeat = (request: Partial<P.ShareGroupHeartbeatRequest> & { memberId: string; memberEpoch: number }) =>
    h.coordinator.shareGroupHeartbeat({ groupId: 'sg', ...request }, h.context(`conn-${request.memberId}`));
  const join = (memberId: string) => heartbeat({ memberId, memberEpoch: 0, subscribedTopicNames: ['jobs'] });
  const pushes = () => h.push.heartbeatNows.filter((p) => p.push.groupId === 'sg');
  const describe = async () => (await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] })).groups[0];

  it('joins of one turn are all answered at the latest epoch with their share, and none is told to heartbeat again', async () => {
    const ids = ['a', 'b', 'c', 'd', 'e', 'f'];
    const answers = await Promise.all(ids.map(join));
    // One bump per join, as Kafka's epochs go; one target, at the last of them.
    expect(answers.map((a) => a.memberEpoch)).toEqual([6, 6, 6, 6, 6, 6]);
    expect(answers.map((a) => owned(a).length)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(answers.flatMap(owned).sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2', 'jobs-3', 'jobs-4', 'jobs-5']);
    await h.settle();
    // Before, each join's answer came at its own epoch and every earlier member was pushed again.
    expect(pushes()).toEqual([]);
    const group = await describe();
    expect(group).toMatchObject({ groupEpoch: 6, assignmentEpoch: 6 });
    expect(group.members.map((m) => m.memberEpoch)).toEqual([6, 6, 6, 6, 6, 6]);
  });

  it('a member of the group before the turn is pushed once the turn took some of its partitions', async () => {
    const a = await join('a');
    expect(owned(a)).toHaveLength(6);
    const [b, c] = await Promise.all([join('b'), join('c')]);
    expect([b.memberEpoch, c.memberEpoch]).toEqual([3, 3]);
    await h.settle();
    expect(pushes().map((p) => p.connectionId)).toEqual(['conn-a']);
    const a2 = await heartbeat({ memberId: 'a', memberEpoch: a.memberEpoch });
    expect(a2.memberEpoch).toBe(3);
    expect([...owned(a2), ...owned(b), ...owned(c)].sort()).toEqual([
      'jobs-0',
      'jobs-1',
      'jobs-2',
      'jobs-3',
      'jobs-4',
      'jobs-5',
    ]);
  });

  it('a leave after joins of the same turn finishes them first, then gives the leaver’s partitions to them', async () => {
    const a = await join('a');
    const [b, c, left] = await Promise.all([join('b'), join('c'), heartbeat({ memberId: 'a', memberEpoch: -1 })]);
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    expect(leases.released).toEqual(['sg/a']);
    expect([b.memberEpoch, c.memberEpoch]).toEqual([3, 3]);
    expect(a.memberEpoch).toBe(1);
    await h.settle();
    // b and c lost nothing but gain a's partitions at the leave's epoch: told to heartbeat.
    expect(new Set(pushes().map((p) => p.connectionId))).toEqual(new Set(['conn-b', 'conn-c']));
    const group = await describe();
    expect(group).toMatchObject({ groupEpoch: 4, assignmentEpoch: 4 });
    const [b2, c2] = await Promise.all([
      heartbeat({ memberId: 'b', memberEpoch: 3 }),
      heartbeat({ memberId: 'c', memberEpoch: 3 }),
    ]);
    expect([...owned(b2), ...owned(c2)].sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2', 'jobs-3', 'jobs-4', 'jobs-5']);
  });

  it("a member's second heartbeat of a turn runs after its first: a join and a leave in one turn leave the group empty", async () => {
    const [joined, left] = await Promise.all([join('a'), heartbeat({ memberId: 'a', memberEpoch: -1 })]);
    expect(joined).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    expect(left).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    expect(await describe()).toMatchObject({ groupState: 'Empty', members: [] });
  });

  it('a describe of the same turn sees the heartbeats that arrived before it', async () => {
    const joined = join('a');
    const described = h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    const group = (await described).groups[0];
    expect(group.errorCode).toBe(0);
    expect(group.members.map((m) => m.memberId)).toEqual(['a']);
    expect((await joined).memberEpoch).toBe(1);
  });

  it('DeleteGroups of the same turn as the last member leaving sees the group Empty and deletes it', async () => {
    const a = await join('a');
    const [left, deleted] = await Promise.all([
      heartbeat({ memberId: 'a', memberEpoch: -1 }),
      h.coordinator.deleteGroups({ groupsNames: ['sg'] }),
    ]);
    expect(a.memberEpoch).toBe(1);
    expect(left.errorCode).toBe(0);
    expect(deleted.results).toEqual([{ groupId: 'sg', errorCode: 0 }]);
    expect((await describe()).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('leaves of one turn give the others one new target, and each of them is told once', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd', 'e', 'f'].map(join));
    const [left1, left2, left3] = await Promise.all(
      ['a', 'b', 'c'].map((memberId) => heartbeat({ memberId, memberEpoch: -1 })),
    );
    expect([left1, left2, left3].map((l) => l.errorCode)).toEqual([0, 0, 0]);
    expect(leases.released).toEqual(['sg/a', 'sg/b', 'sg/c']);
    await h.settle();
    // Three epoch bumps, one target at the last of them.
    expect(await describe()).toMatchObject({ groupEpoch: 9, assignmentEpoch: 9 });
    expect(
      pushes()
        .map((p) => p.connectionId)
        .sort(),
    ).toEqual(['conn-d', 'conn-e', 'conn-f']);
    const after = await Promise.all(
      ['d', 'e', 'f'].map((memberId, i) => heartbeat({ memberId, memberEpoch: answers[3 + i].memberEpoch })),
    );
    expect(after.map((a) => a.memberEpoch)).toEqual([9, 9, 9]);
    expect(after.flatMap(owned).sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2', 'jobs-3', 'jobs-4', 'jobs-5']);
  });

  it('sessions that end at the same instant are fenced one epoch each, and the others get one new target', async () => {
    const answers = await Promise.all(['a', 'b', 'c', 'd'].map(join));
    // c and d keep heartbeating; a and b go silent and their sessions end together.
    const beat = () =>
      Promise.all(['c', 'd'].map((memberId, i) => heartbeat({ memberId, memberEpoch: answers[2 + i].memberEpoch })));
    for (let waited = 0; waited <= h.config.groupShareSessionTimeoutMs; waited += 10_000) {
      await beat();
      await h.advance(10_000);
    }
    await h.settle();
    expect(leases.released.sort()).toEqual(['sg/a', 'sg/b']);
    const group = await describe();
    expect(group).toMatchObject({ groupEpoch: 6, assignmentEpoch: 6 });
    expect(group.members.map((m) => m.memberId).sort()).toEqual(['c', 'd']);
    expect(
      pushes()
        .map((p) => p.connectionId)
        .sort(),
    ).toEqual(['conn-c', 'conn-d']);
    const [c, d] = await beat();
    expect([...owned(c), ...owned(d)].sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2', 'jobs-3', 'jobs-4', 'jobs-5']);
  });

  it('a failed write answers every heartbeat of the turn that waited on it with the failure and takes the group back', async () => {
    await join('a');
    h.store.failNextAppend(h.partitionOf('sg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    const [b, c] = await Promise.all([join('b'), join('c')]);
    expect(b).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, assignment: null });
    expect(c).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, assignment: null });
    const group = await describe();
    expect(group).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1 });
    expect(group.members.map((m) => m.memberId)).toEqual(['a']);
    expect(h.shardOf('sg').share.assignedPartitions('sg', 'a')).toMatchObject({ size: 6 });
    // Retried, they join.
    const again = await Promise.all([join('b'), join('c')]);
    expect(again.map((x) => x.memberEpoch)).toEqual([3, 3]);
  });
});
