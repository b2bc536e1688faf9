import { ErrorCode, KafkaError } from '@cohort/protocol';
import { decodeGroupMetadataValue } from '../records/group-metadata-record';
import { decodeKey } from '../records/record-codec';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('SyncGroup', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  const completing = (): ReturnType<CoordinatorHarness['completingGroup']> => h.completingGroup('g');

  it("writes the group's assignment as one GroupMetadata record before anyone is answered", async () => {
    h.store.autoCommit = false;
    const { leader, follower } = await completing();
    const sync = h.sync('g', leader, 1, [
      { memberId: leader, assignment: { partitions: [{ topic: 'orders', partitions: [0, 1] }] } },
    ]);
    await h.settle();
    expect(sync.done).toBe(false);
    const records = h.store.records(h.partitionOf('g'));
    const group = records
      .filter((r) => decodeKey(r.key).type === 'group-metadata')
      .map((r) => decodeGroupMetadataValue(r.value!));
    expect(group).toHaveLength(1);
    expect(group[0]).toMatchObject({ generation: 1, protocolType: 'consumer', protocol: 'range', leader });
    // The member the leader left out gets an empty assignment.
    expect(group[0].members.find((m) => m.memberId === follower)!.assignment).toEqual({ partitions: [] });
    expect(group[0].members.find((m) => m.memberId === leader)!.subscription).toEqual({ topics: ['orders'] });
    h.store.commitAll();
    await h.settle();
    expect(sync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [0, 1] }] });
  });

  it('a timed-out write answers REBALANCE_IN_PROGRESS and the group rebalances', async () => {
    h.store.autoCommit = false;
    const { leader } = await completing();
    const sync = h.sync('g', leader, 1, []);
    await h.advance(h.config.offsetsCommitTimeoutMs);
    expect(sync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('an append refused by the store (NOT_LEADER) answers NOT_COORDINATOR', async () => {
    const { leader } = await completing();
    h.store.failNextAppend(h.partitionOf('g'), new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    const sync = h.sync('g', leader, 1, []);
    await h.settle();
    expect(sync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('validates generation, member and protocol', async () => {
    const { leader } = await completing();
    const wrongGeneration = h.sync('g', leader, 7);
    const unknown = h.sync('g', 'client-nobody', 1);
    const wrongProtocol = h.sync('g', leader, 1, [], { protocolName: 'roundrobin' });
    const wrongType = h.sync('g', leader, 1, [], { protocolType: 'connect' });
    const unknownGroup = h.sync('missing', leader, 1);
    await h.settle();
    expect(wrongGeneration.value.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(unknown.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(wrongProtocol.value.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(wrongType.value.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect(unknownGroup.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
  });

  it('names a protocol while the group has none chosen yet: REBALANCE_IN_PROGRESS, not INCONSISTENT_GROUP_PROTOCOL (Kafka compares only when both name one)', async () => {
    const slow = new CoordinatorHarness({ config: { groupInitialRebalanceDelayMs: 3000 } });
    await slow.settle();
    const { memberId } = await slow.joinNew('g');
    expect((await slow.describe('g')).groupState).toBe('PreparingRebalance');
    const sync = slow.sync('g', memberId, 0, [], { protocolType: 'consumer', protocolName: 'range' });
    await slow.settle();
    expect(sync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('a late follower in Stable gets the stored assignment at once', async () => {
    const { leader, follower } = await completing();
    h.sync('g', leader, 1, [
      { memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [2] }] } },
    ]);
    await h.settle();
    const late = h.sync('g', follower, 1);
    await h.settle();
    expect(late.value).toEqual({
      errorCode: 0,
      protocolType: 'consumer',
      protocolName: 'range',
      assignment: { partitions: [{ topic: 'orders', partitions: [2] }] },
    });
  });

  it('opaque protocols: assignments of any JSON pass through unchanged', async () => {
    const a = await h.joinNew('c', { protocolType: 'connect', protocols: [{ name: 'v1', metadata: 'opaque-string' }] });
    await h.advance(0);
    const sync = h.sync('c', a.memberId, 1, [{ memberId: a.memberId, assignment: { tasks: [1, 2], leader: true } }]);
    await h.settle();
    expect(sync.value.assignment).toEqual({ tasks: [1, 2], leader: true });
  });
});
