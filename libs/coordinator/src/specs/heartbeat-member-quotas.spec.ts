import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { RequestContext } from '@cohort/coordinator/ports/group-coordinator.api';
import type { CoordinatorMetrics } from '@cohort/coordinator/ports/coordinator-metrics.port';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

const ALICE = 'User:alice';
const BOB = 'User:bob';

/** `count` topic names, about 12 bytes each as JSON. */
function manyTopics(count: number): string[] {
  return Array.from({ length: count }, (_, i) => `topic-${String(i).padStart(5, '0')}`);
}

/**
 * MAX_MEMBERS_PER_PRINCIPAL and MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL for the members of consumer
 * groups (KIP-848) and share groups (KIP-932), as for classic members (member-quotas.spec.ts): a member
 * joining counts as a member, its subscription as its metadata bytes; over a limit the heartbeat is
 * answered THROTTLING_QUOTA_EXCEEDED, writes nothing and creates no group; a member that leaves or is
 * fenced gives its slot back.
 */
describe('per-principal membership limits for consumer and share group heartbeats', () => {
  const refusals: string[] = [];
  const metrics: CoordinatorMetrics = { onMemberQuotaRefused: (limit) => refusals.push(limit) };
  let h: CoordinatorHarness;

  async function start(config: { maxMembersPerPrincipal?: number; maxMemberMetadataBytesPerPrincipal?: number }) {
    refusals.length = 0;
    h = new CoordinatorHarness({
      config,
      metrics,
      topics: [{ name: 'orders', partitions: 2 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
  }

  const as = (principal: string | undefined, connectionId = 'conn'): RequestContext => ({
    ...h.context(connectionId),
    principal,
  });
  /** Every record written to `__consumer_offsets`, across its partitions. */
  const written = (): number => {
    let count = 0;
    for (let p = 0; p < h.config.numPartitions; p++) count += h.store.records(p).length;
    return count;
  };
  const consumerJoin = (groupId: string, memberId: string, principal: string | undefined, topics = ['orders']) =>
    h.coordinator.consumerGroupHeartbeat(
      {
        groupId,
        memberId,
        memberEpoch: 0,
        rebalanceTimeoutMs: 1000,
        topicPartitions: [],
        subscribedTopicNames: topics,
      },
      as(principal),
    );
  const shareJoin = (groupId: string, memberId: string, principal: string | undefined, topics = ['orders']) =>
    h.coordinator.shareGroupHeartbeat(
      { groupId, memberId, memberEpoch: 0, subscribedTopicNames: topics },
      as(principal),
    );
  const consumerGroupExists = async (groupId: string) =>
    (await h.coordinator.consumerGroupDescribe({ groupIds: [groupId] })).groups[0].errorCode === ErrorCode.NONE;
  const shareGroupExists = async (groupId: string) =>
    (await h.coordinator.shareGroupDescribe({ groupIds: [groupId] })).groups[0].errorCode === ErrorCode.NONE;

  function expectRefused(
    response: P.ConsumerGroupHeartbeatResponse | P.ShareGroupHeartbeatResponse,
    variable: string,
  ): void {
    expect(response).toMatchObject({ errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED, memberId: null });
    expect(response.errorMessage).toContain(variable);
  }

  it('a consumer group member over MAX_MEMBERS_PER_PRINCIPAL is refused, writes nothing and creates no group; another principal still joins', async () => {
    await start({ maxMembersPerPrincipal: 2 });
    expect((await consumerJoin('c1', 'm1', ALICE)).errorCode).toBe(ErrorCode.NONE);
    expect((await consumerJoin('c2', 'm2', ALICE)).errorCode).toBe(ErrorCode.NONE);
    await h.settle();
    const before = written();
    const refused = await consumerJoin('c3', 'm3', ALICE);
    expectRefused(refused, 'MAX_MEMBERS_PER_PRINCIPAL=2');
    await h.settle();
    expect(written()).toBe(before);
    expect(await consumerGroupExists('c3')).toBe(false);
    expect(refusals).toEqual(['members']);
    expect((await consumerJoin('c3', 'm3', BOB)).errorCode).toBe(ErrorCode.NONE);
    // A caller without a principal (a super user) is not counted.
    expect((await consumerJoin('c4', 'm4', undefined)).errorCode).toBe(ErrorCode.NONE);
  });

  it('a share group member over MAX_MEMBERS_PER_PRINCIPAL is refused, writes nothing and creates no group; another principal still joins', async () => {
    await start({ maxMembersPerPrincipal: 2 });
    expect((await shareJoin('s1', 'm1', ALICE)).errorCode).toBe(ErrorCode.NONE);
    expect((await shareJoin('s2', 'm2', ALICE)).errorCode).toBe(ErrorCode.NONE);
    await h.settle();
    const before = written();
    const refused = await shareJoin('s3', 'm3', ALICE);
    expectRefused(refused, 'MAX_MEMBERS_PER_PRINCIPAL=2');
    await h.settle();
    expect(written()).toBe(before);
    expect(await shareGroupExists('s3')).toBe(false);
    expect((await shareJoin('s3', 'm3', BOB)).errorCode).toBe(ErrorCode.NONE);
  });

  it('consumer and classic members share one count per principal', async () => {
    await start({ maxMembersPerPrincipal: 2 });
    expect((await consumerJoin('c1', 'm1', ALICE)).errorCode).toBe(ErrorCode.NONE);
    expect((await shareJoin('s1', 'm1', ALICE)).errorCode).toBe(ErrorCode.NONE);
    const classic = await h.coordinator.joinGroup(h.joinRequest('g'), as(ALICE));
    expect(classic.errorCode).toBe(ErrorCode.THROTTLING_QUOTA_EXCEEDED);
  });

  it('a subscription of 50,000 topic names passes MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL: the join is refused, for consumer and share groups', async () => {
    await start({ maxMemberMetadataBytesPerPrincipal: 100_000 });
    const before = written();
    expectRefused(
      await consumerJoin('c1', 'm1', ALICE, manyTopics(50_000)),
      'MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=100000',
    );
    expectRefused(
      await shareJoin('s1', 'm1', ALICE, manyTopics(50_000)),
      'MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=100000',
    );
    await h.settle();
    expect(written()).toBe(before);
    expect(await consumerGroupExists('c1')).toBe(false);
    expect(await shareGroupExists('s1')).toBe(false);
    expect(refusals).toEqual(['metadata-bytes', 'metadata-bytes']);
    // Small subscriptions fit, many of them up to the limit.
    expect((await consumerJoin('c1', 'm1', ALICE, manyTopics(3_000))).errorCode).toBe(ErrorCode.NONE);
    expect((await shareJoin('s1', 'm1', ALICE, manyTopics(3_000))).errorCode).toBe(ErrorCode.NONE);
    expectRefused(await consumerJoin('c2', 'm2', ALICE, manyTopics(3_000)), 'MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL');
    expect((await consumerJoin('c2', 'm2', BOB, manyTopics(3_000))).errorCode).toBe(ErrorCode.NONE);
  });

  it('a member whose subscription grows past MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL is refused and keeps its subscription', async () => {
    await start({ maxMemberMetadataBytesPerPrincipal: 100_000 });
    const joined = await consumerJoin('c1', 'm1', ALICE);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const shared = await shareJoin('s1', 'm1', ALICE);
    expect(shared.errorCode).toBe(ErrorCode.NONE);
    await h.settle();
    const before = written();
    const grown = await h.coordinator.consumerGroupHeartbeat(
      { groupId: 'c1', memberId: 'm1', memberEpoch: joined.memberEpoch, subscribedTopicNames: manyTopics(50_000) },
      as(ALICE),
    );
    expectRefused(grown, 'MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=100000');
    const shareGrown = await h.coordinator.shareGroupHeartbeat(
      { groupId: 's1', memberId: 'm1', memberEpoch: shared.memberEpoch, subscribedTopicNames: manyTopics(50_000) },
      as(ALICE),
    );
    expectRefused(shareGrown, 'MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=100000');
    await h.settle();
    expect(written()).toBe(before);
    expect(h.shardOf('c1').consumerGroup('c1')!.member('m1')!.subscribedTopicNames).toEqual(new Set(['orders']));
    expect([...h.shardOf('s1').shareGroup('s1')!.member('m1')!.subscribedTopicNames.keys()]).toEqual(['orders']);
    // A change within the limit is taken.
    const small = await h.coordinator.consumerGroupHeartbeat(
      { groupId: 'c1', memberId: 'm1', memberEpoch: joined.memberEpoch, subscribedTopicNames: manyTopics(100) },
      as(ALICE),
    );
    expect(small.errorCode).toBe(ErrorCode.NONE);
  });

  it('a member that leaves gives its slot back, so a new join succeeds', async () => {
    await start({ maxMembersPerPrincipal: 1 });
    const joined = await consumerJoin('c1', 'm1', ALICE);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    expectRefused(await shareJoin('s1', 'm1', ALICE), 'MAX_MEMBERS_PER_PRINCIPAL=1');
    const left = await h.coordinator.consumerGroupHeartbeat(
      { groupId: 'c1', memberId: 'm1', memberEpoch: -1 },
      as(ALICE),
    );
    expect(left.errorCode).toBe(ErrorCode.NONE);
    const shared = await shareJoin('s1', 'm1', ALICE);
    expect(shared.errorCode).toBe(ErrorCode.NONE);
    expectRefused(await consumerJoin('c1', 'm2', ALICE), 'MAX_MEMBERS_PER_PRINCIPAL=1');
    const shareLeft = await h.coordinator.shareGroupHeartbeat(
      { groupId: 's1', memberId: 'm1', memberEpoch: -1 },
      as(ALICE),
    );
    expect(shareLeft.errorCode).toBe(ErrorCode.NONE);
    expect((await consumerJoin('c1', 'm2', ALICE)).errorCode).toBe(ErrorCode.NONE);
  });

  it('a member fenced at its session timeout gives its slot back', async () => {
    await start({ maxMembersPerPrincipal: 1 });
    expect((await consumerJoin('c1', 'm1', ALICE)).errorCode).toBe(ErrorCode.NONE);
    expectRefused(await consumerJoin('c2', 'm2', ALICE), 'MAX_MEMBERS_PER_PRINCIPAL=1');
    await h.advance(h.config.groupConsumerSessionTimeoutMs + 1);
    expect(h.shardOf('c1').consumerGroup('c1')!.member('m1')).toBeUndefined();
    expect((await shareJoin('s1', 'm1', ALICE)).errorCode).toBe(ErrorCode.NONE);
    await h.advance(h.config.groupShareSessionTimeoutMs + 1);
    expect(h.shardOf('s1').shareGroup('s1')!.member('m1')).toBeUndefined();
    expect((await consumerJoin('c2', 'm2', ALICE)).errorCode).toBe(ErrorCode.NONE);
  });

  it('heartbeats of one turn: the one over the limit is refused alone, the others of its batch join', async () => {
    await start({ maxMembersPerPrincipal: 2 });
    const answers = await Promise.all([
      consumerJoin('c1', 'a', ALICE),
      consumerJoin('c1', 'b', ALICE),
      consumerJoin('c1', 'c', ALICE),
      consumerJoin('c1', 'd', BOB),
    ]);
    expect(answers.map((a) => a.errorCode)).toEqual([
      ErrorCode.NONE,
      ErrorCode.NONE,
      ErrorCode.THROTTLING_QUOTA_EXCEEDED,
      ErrorCode.NONE,
    ]);
    const group = h.shardOf('c1').consumerGroup('c1')!;
    expect([...group.members.keys()].sort()).toEqual(['a', 'b', 'd']);
  });
});
