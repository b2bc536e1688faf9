import { ErrorCode } from '@cohort/protocol';
import { decodeGroupMetadataValue } from '../records/group-metadata-record';
import { decodeKey } from '../records/record-codec';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('LeaveGroup (batched, KIP-345)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it('answers each member on its own; the request itself succeeds', async () => {
    const { memberIds } = await h.stableGroup('g', 2);
    const pending = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
    const response = await h.coordinator.leaveGroup(
      {
        groupId: 'g',
        members: [
          { memberId: memberIds[0] },
          { memberId: memberIds[0] },
          { memberId: 'client-stranger' },
          { memberId: pending.memberId },
          { memberId: memberIds[1], groupInstanceId: 'not-mine' },
          { memberId: '', groupInstanceId: 'nobody' },
        ],
      },
      h.context(),
    );
    expect(response.errorCode).toBe(0);
    expect(response.members.map((m) => m.errorCode)).toEqual([
      ErrorCode.NONE,
      ErrorCode.UNKNOWN_MEMBER_ID,
      ErrorCode.UNKNOWN_MEMBER_ID,
      ErrorCode.NONE,
      ErrorCode.UNKNOWN_MEMBER_ID, // an instance id the group does not know
      ErrorCode.UNKNOWN_MEMBER_ID,
    ]);
    expect((await h.describe('g')).members.map((m) => m.memberId)).toEqual([memberIds[1]]);
  });

  it('for a group that does not exist, every member is UNKNOWN_MEMBER_ID and the request succeeds', async () => {
    const response = await h.coordinator.leaveGroup(
      { groupId: 'nope', members: [{ memberId: 'a' }, { memberId: '', groupInstanceId: 'b' }] },
      h.context(),
    );
    expect(response).toEqual({
      errorCode: 0,
      members: [
        { memberId: 'a', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
        { memberId: '', groupInstanceId: 'b', errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      ],
    });
  });

  it('the leader leaving during CompletingRebalance: parked SyncGroups get REBALANCE_IN_PROGRESS and a member that rejoins leads the next generation', async () => {
    const { leader, follower } = await h.completingGroup('g');
    const parked = h.sync('g', follower, 1);
    await h.settle();
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: leader }] }, h.context());
    await h.settle();
    expect(parked.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = h.join('g', follower);
    await h.settle();
    expect(rejoin.value).toMatchObject({ errorCode: 0, generationId: 2, leader: follower });
    expect(rejoin.value.members.map((m) => m.memberId)).toEqual([follower]);
  });

  it('the last member leaving makes the group Empty at the next generation and persists that', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: memberIds[0] }] }, h.context());
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Empty');
    const records = h.store.records(h.partitionOf('g')).filter((r) => decodeKey(r.key).type === 'group-metadata');
    expect(decodeGroupMetadataValue(records.at(-1)!.value!)).toMatchObject({
      generation: generationId + 1,
      protocolType: 'consumer',
      protocol: null,
      leader: null,
      members: [],
    });
    await h.restart();
    expect((await h.coordinator.describeGroup('g')).generationId).toBe(generationId + 1);
  });

  it('a KIP-394 member id handed out and then given back lets the join phase complete at once', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 2);
    const pending = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
    const rejoins = memberIds.map((memberId) => h.join('g', memberId));
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    expect(rejoins.some((j) => j.done)).toBe(false); // every member is in, but the handed-out id may still join
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: pending.memberId }] }, h.context());
    await h.settle();
    expect(rejoins.map((j) => j.value.generationId)).toEqual([generationId + 1, generationId + 1]);
  });
});
