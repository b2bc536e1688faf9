import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { createUniformAssignor } from '@cohort/assignors';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import type { ShareLeaseOwner } from '../share/share-ports';
import type { ShareAssignment } from '../share/share-assignment';

/** Every partition a heartbeat answer assigns, as `topic-partition` strings. */
function owned(response: P.ShareGroupHeartbeatResponse | undefined): string[] {
  return (response?.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));
}

/** The share partitions' side of the seam, recording what membership told it. */
class RecordingLeases implements ShareLeaseOwner {
  readonly released: string[] = [];
  readonly deleted: string[] = [];
  releaseMember(groupId: string, memberId: string): void {
    this.released.push(`${groupId}/${memberId}`);
  }
  deleteGroup(groupId: string): { records: []; restore: () => void } {
    this.deleted.push(groupId);
    return { records: [], restore: () => undefined };
  }
}

describe('share groups on the coordinator (KIP-932 membership through the shard)', () => {
  let h: CoordinatorHarness;
  let leases: RecordingLeases;

  async function start(config: ConstructorParameters<typeof CoordinatorHarness>[0] = {}): Promise<void> {
    h = new CoordinatorHarness({ topics: [{ name: 'jobs', partitions: 3 }], autoCommit: true, ...config });
    await h.settle();
    leases = new RecordingLeases();
    h.shardOf('sg').shareLeases = leases;
  }

  beforeEach(() => start());

  const heartbeat = (request: Partial<P.ShareGroupHeartbeatRequest> & { memberId: string; memberEpoch: number }) =>
    h.coordinator.shareGroupHeartbeat({ groupId: 'sg', ...request }, h.context(`conn-${request.memberId}`));
  const join = (memberId: string, topics = ['jobs']) =>
    heartbeat({ memberId, memberEpoch: 0, subscribedTopicNames: topics });
  const pushedTo = (memberId: string) =>
    h.push.heartbeatNows.filter((p) => p.connectionId === `conn-${memberId}` && p.push.groupId === 'sg');

  it('a first member gets every partition; a second takes its share at once and the first is told to heartbeat now', async () => {
    const a = await join('member-a');
    expect(a).toMatchObject({ errorCode: 0, memberId: 'member-a', memberEpoch: 1, heartbeatIntervalMs: 5000 });
    expect(owned(a).sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);

    const b = await join('member-b');
    expect(b.memberEpoch).toBe(2);
    expect(owned(b).length).toBe(1);
    await h.settle();
    expect(pushedTo('member-a').length).toBe(1);
    const a2 = await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    expect(a2.memberEpoch).toBe(2);
    expect(owned(a2).length).toBe(2);
    expect([...owned(a2), ...owned(b)].sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);
    // Nothing changed since: the answer carries no assignment.
    expect((await heartbeat({ memberId: 'member-a', memberEpoch: 2 })).assignment).toBeNull();
  });

  it('members beyond the partitions share them: four members on three partitions work each partition twice', async () => {
    for (const id of ['a', 'b', 'c', 'd']) await join(id);
    const answers = [];
    for (const id of ['a', 'b', 'c', 'd'])
      answers.push(await heartbeat({ memberId: id, memberEpoch: 0, subscribedTopicNames: ['jobs'] }));
    const counts = new Map<string, number>();
    for (const answer of answers) for (const tp of owned(answer)) counts.set(tp, (counts.get(tp) ?? 0) + 1);
    expect([...counts.entries()].sort()).toEqual([
      ['jobs-0', 2],
      ['jobs-1', 2],
      ['jobs-2', 2],
    ]);
    expect(answers.every((answer) => owned(answer).length >= 1)).toBe(true);
  });

  it('a member that leaves gives its leases back and its partitions go to the others in the same write', async () => {
    await join('member-a');
    const b = await join('member-b');
    const a2 = await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    expect(owned(a2).length).toBe(2);
    const left = await heartbeat({ memberId: 'member-b', memberEpoch: b.memberEpoch });
    expect(left.errorCode).toBe(0);
    const leave = await heartbeat({ memberId: 'member-b', memberEpoch: -1 });
    expect(leave).toMatchObject({ errorCode: 0, memberId: 'member-b', memberEpoch: -1, assignment: null });
    expect(leases.released).toEqual(['sg/member-b']);
    await h.settle();
    expect(pushedTo('member-a').length).toBe(2);
    const a3 = await heartbeat({ memberId: 'member-a', memberEpoch: 2 });
    expect(a3.memberEpoch).toBe(3);
    expect(owned(a3).sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2']);
    expect(h.shardOf('sg').share.assignedPartitions('sg', 'member-b')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(h.shardOf('sg').share.assignedPartitions('sg', 'member-a')).toMatchObject({ size: 3 });
  });

  it('a member silent for the session timeout is fenced, its leases go back, and the group survives it in the log', async () => {
    await join('member-a');
    await join('member-b');
    await h.advance(h.config.groupShareSessionTimeoutMs - 1000);
    const a = await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    expect(a.errorCode).toBe(0);
    await h.advance(1001);
    expect(leases.released).toEqual(['sg/member-b']);
    const described = await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    expect(described.groups[0].members.map((m) => m.memberId)).toEqual(['member-a']);
    expect((await heartbeat({ memberId: 'member-b', memberEpoch: 2 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('answers Kafka errors and changes nothing: fenced epochs, unknown members and groups, bad requests, a full group', async () => {
    await start({ config: { groupShareMaxSize: 2 } });
    await join('member-a');
    expect((await heartbeat({ memberId: 'member-a', memberEpoch: 5 })).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect((await heartbeat({ memberId: 'ghost', memberEpoch: 1 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await heartbeat({ memberId: 'ghost', memberEpoch: -1 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const missing = await h.coordinator.shareGroupHeartbeat(
      { groupId: 'nope', memberId: 'x', memberEpoch: 3 },
      h.context(),
    );
    expect(missing.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect((await heartbeat({ memberId: 'member-c', memberEpoch: 0 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await heartbeat({ memberId: 'member-c', memberEpoch: -2 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await join('m'.repeat(37))).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await heartbeat({ memberId: '', memberEpoch: 0, subscribedTopicNames: ['jobs'] })).errorCode).toBe(
      ErrorCode.INVALID_REQUEST,
    );
    await join('member-b');
    const third = await join('member-c');
    expect(third).toMatchObject({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, memberId: null });
    const described = await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    expect(described.groups[0].members.map((m) => m.memberId).sort()).toEqual(['member-a', 'member-b']);
  });

  it('accepts the previous epoch (a lost answer) and a rejoin with epoch 0, and fences an older one', async () => {
    await join('member-a');
    await join('member-b');
    const a = await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    expect(a.memberEpoch).toBe(2);
    expect((await heartbeat({ memberId: 'member-a', memberEpoch: 1 })).errorCode).toBe(0);
    await join('member-c');
    await heartbeat({ memberId: 'member-a', memberEpoch: 2 });
    expect((await heartbeat({ memberId: 'member-a', memberEpoch: 1 })).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    const rejoined = await join('member-a');
    expect(rejoined.errorCode).toBe(0);
    expect(owned(rejoined).length).toBe(1);
  });

  it('a group id of another type is GROUP_ID_NOT_FOUND both ways, and the classic and offset APIs do not see a share group', async () => {
    await start({ consumerAssignors: [createUniformAssignor()] });
    const consumer = await h.coordinator.consumerGroupHeartbeat(
      {
        groupId: 'cg',
        memberId: 'c1',
        memberEpoch: 0,
        subscribedTopicNames: ['jobs'],
        rebalanceTimeoutMs: 1000,
        topicPartitions: [],
      },
      h.context(),
    );
    expect(consumer.errorCode).toBe(0);
    const asShare = await h.coordinator.shareGroupHeartbeat(
      { groupId: 'cg', memberId: 's1', memberEpoch: 0, subscribedTopicNames: ['jobs'] },
      h.context(),
    );
    expect(asShare.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    await join('member-a');
    const asConsumer = await h.coordinator.consumerGroupHeartbeat(
      {
        groupId: 'sg',
        memberId: 'c2',
        memberEpoch: 0,
        subscribedTopicNames: ['jobs'],
        rebalanceTimeoutMs: 1000,
        topicPartitions: [],
      },
      h.context(),
    );
    expect(asConsumer.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    const asClassic = await h.coordinator.joinGroup(
      {
        groupId: 'sg',
        memberId: '',
        protocolType: 'consumer',
        sessionTimeoutMs: 10_000,
        rebalanceTimeoutMs: 10_000,
        protocols: [{ name: 'range', metadata: { version: 0, topics: ['jobs'] } }],
      } as P.JoinGroupRequest,
      h.context(),
    );
    expect(asClassic.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    const described = await h.coordinator.describeGroups({ groups: ['sg'] });
    expect(described.groups[0]).toMatchObject({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      errorMessage: 'Group sg is not a classic group.',
      groupState: 'Dead',
      members: [],
    });
    expect((await h.coordinator.offsetFetch({ groupId: 'sg', topics: null } as P.OffsetFetchRequest)).errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    const describeOther = await h.coordinator.shareGroupDescribe({ groupIds: ['cg', 'none', ''] });
    expect(describeOther.groups.map((g) => g.errorCode)).toEqual([
      ErrorCode.GROUP_ID_NOT_FOUND,
      ErrorCode.GROUP_ID_NOT_FOUND,
      ErrorCode.INVALID_GROUP_ID,
    ]);
  });

  it('ListGroups shows a share group with type share, and DeleteGroups deletes it only when Empty, with its share partitions', async () => {
    const a = await join('member-a');
    const listed = await h.coordinator.listGroups({ typesFilter: ['share'] });
    expect(listed.groups).toEqual([{ groupId: 'sg', protocolType: 'share', groupState: 'Stable', groupType: 'share' }]);
    expect((await h.coordinator.listGroups({ typesFilter: ['consumer'] })).groups).toEqual([]);
    let deleted = await h.coordinator.deleteGroups({ groupsNames: ['sg'] });
    expect(deleted.results).toEqual([{ groupId: 'sg', errorCode: ErrorCode.NON_EMPTY_GROUP }]);
    await heartbeat({ memberId: 'member-a', memberEpoch: a.memberEpoch });
    await heartbeat({ memberId: 'member-a', memberEpoch: -1 });
    expect((await h.coordinator.listGroups({ statesFilter: ['empty'] })).groups.map((g) => g.groupId)).toEqual(['sg']);
    deleted = await h.coordinator.deleteGroups({ groupsNames: ['sg'] });
    expect(deleted.results).toEqual([{ groupId: 'sg', errorCode: 0 }]);
    expect(leases.deleted).toEqual(['sg']);
    await h.restart();
    expect((await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] })).groups[0].errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
  });

  it('a share group survives a restart: the same epochs, members and assignments, and its members carry on', async () => {
    await join('member-a');
    const b = await join('member-b');
    await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    const before = await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    await h.restart();
    const after = await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    expect(after).toEqual(before);
    expect(after.groups[0]).toMatchObject({
      groupState: 'Stable',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignorName: 'simple',
    });
    const again = await heartbeat({ memberId: 'member-b', memberEpoch: b.memberEpoch });
    expect(again).toMatchObject({ errorCode: 0, memberEpoch: b.memberEpoch, assignment: null });
    expect([...(h.shardOf('sg').share.assignedPartitions('sg', 'member-b') as ShareAssignment)]).toEqual(
      owned(b).map((tp) => ({ topic: 'jobs', partition: Number(tp.split('-')[1]) })),
    );
  });

  it('a subscribed topic that grows is assigned at once and its members are told to heartbeat now', async () => {
    await join('member-a');
    await h.topics.setPartitions('jobs', 4);
    await h.settle();
    expect(pushedTo('member-a').map((p) => p.push.reason)).toEqual(['topic jobs changed']);
    const a = await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    expect(a.memberEpoch).toBe(2);
    expect(owned(a).sort()).toEqual(['jobs-0', 'jobs-1', 'jobs-2', 'jobs-3']);
  });

  it('a closed connection gives the member its leases back after the grace, unless it came back on another', async () => {
    await start({ config: { memberDisconnectGraceMs: 3000 } });
    await join('member-a');
    await join('member-b');
    h.coordinator.connectionClosed('conn-member-a');
    h.coordinator.connectionClosed('conn-member-b');
    await h.advance(1000);
    await h.coordinator.shareGroupHeartbeat(
      { groupId: 'sg', memberId: 'member-b', memberEpoch: 2 },
      h.context('other'),
    );
    await h.advance(2001);
    expect(leases.released).toEqual(['sg/member-a']);
  });

  it("REST describes a share group with its epochs, the simple assignor and each member's epoch and assignment, and lists it by state and topic", async () => {
    await join('member-a');
    const b = await join('member-b');
    await heartbeat({ memberId: 'member-a', memberEpoch: 1 });
    const view = await h.coordinator.describeGroup('sg');
    expect(view).toMatchObject({
      groupId: 'sg',
      type: 'share',
      state: 'Stable',
      protocolType: 'share',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignor: 'simple',
    });
    expect(view.members.map((m) => [m.memberId, m.memberEpoch, m.subscribedTopicNames])).toEqual([
      ['member-a', 2, ['jobs']],
      ['member-b', 2, ['jobs']],
    ]);
    const memberB = view.members.find((m) => m.memberId === 'member-b')!;
    expect(memberB.assignment).toEqual({
      partitions: [{ topic: 'jobs', partitions: owned(b).map((tp) => Number(tp.split('-')[1])) }],
    });
    expect(await h.coordinator.listGroupSummaries(['Stable'], 'jobs')).toEqual([
      { groupId: 'sg', type: 'share', protocolType: 'share', state: 'Stable', members: 2 },
    ]);
    expect(await h.coordinator.listGroupSummaries(['Empty'])).toEqual([]);
  });

  it('a heartbeat whose write fails is answered with the failure and its change is taken back, leases untouched', async () => {
    const a = await join('member-a');
    h.store.failNextAppend(h.partitionOf('sg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    const failed = await join('member-b');
    expect(failed).toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR, memberId: null, assignment: null });
    const described = await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    expect(described.groups[0]).toMatchObject({ groupEpoch: 1, assignmentEpoch: 1 });
    expect(described.groups[0].members.map((m) => [m.memberId, m.memberEpoch])).toEqual([['member-a', 1]]);
    // member-a still holds everything, and a retried join works.
    expect(h.shardOf('sg').share.assignedPartitions('sg', 'member-a')).toMatchObject({ size: 3 });
    expect((await heartbeat({ memberId: 'member-a', memberEpoch: a.memberEpoch })).errorCode).toBe(0);
    expect((await join('member-b')).memberEpoch).toBe(2);
    expect(leases.released).toEqual([]);
  });

  it('turned off by GROUP_COORDINATOR_REBALANCE_PROTOCOLS, both events answer UNSUPPORTED_VERSION', async () => {
    await start({ config: { rebalanceProtocols: ['classic', 'consumer'] } });
    expect((await join('member-a')).errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
    const described = await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] });
    expect(described.groups[0].errorCode).toBe(ErrorCode.UNSUPPORTED_VERSION);
  });
});
