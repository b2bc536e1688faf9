import { ErrorCode } from '@cohort/protocol';
import { decodeGroupMetadataValue } from '../../records/group-metadata-record';
import { decodeKey } from '../../records/record-codec';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

async function harness(options: ConstructorParameters<typeof CoordinatorHarness>[0] = {}): Promise<CoordinatorHarness> {
  const h = new CoordinatorHarness(options);
  await h.settle();
  return h;
}

/**
 * With a 3 s initial delay: a joins, b joins 2 s later; the first delay ends at 3 s, b extends it by
 * another 3 s, and both get `generationId` exactly then.
 */
async function expectSecondJoinerExtendsTheDelay(h: CoordinatorHarness, generationId: number): Promise<void> {
  const a = await h.joinNew('g', { rebalanceTimeoutMs: 10_000 });
  await h.advance(2000);
  const b = await h.joinNew('g', { rebalanceTimeoutMs: 10_000 });
  await h.advance(1000);
  expect(a.join.done).toBe(false);
  await h.advance(2999);
  expect(a.join.done).toBe(false);
  await h.advance(1);
  expect(a.join.value.generationId).toBe(generationId);
  expect(b.join.value.generationId).toBe(generationId);
}

describe('transitions out of Empty and PreparingRebalance', () => {
  it('Empty → PreparingRebalance on the first JoinGroup', async () => {
    const h = await harness({ config: { groupInitialRebalanceDelayMs: 3000 } });
    const { join } = await h.joinNew('g');
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    expect(join.done).toBe(false);
  });

  it('PreparingRebalance → CompletingRebalance when all known members rejoined', async () => {
    const h = await harness();
    const { memberIds, generationId } = await h.stableGroup('g', 2);
    const [a, b] = memberIds;
    const ja = h.join('g', a);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    expect(ja.done).toBe(false);
    const jb = h.join('g', b);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
    expect(ja.value.generationId).toBe(generationId + 1);
    expect(jb.value.generationId).toBe(generationId + 1);
  });

  it('PreparingRebalance → CompletingRebalance when the rebalance timeout expires, without the dynamic members that did not rejoin', async () => {
    const h = await harness();
    const { memberIds } = await h.stableGroup('g', 2, { rebalanceTimeoutMs: 20_000, sessionTimeoutMs: 30_000 });
    const [a, b] = memberIds;
    const ja = h.join('g', a, { rebalanceTimeoutMs: 20_000, sessionTimeoutMs: 30_000 });
    await h.advance(19_999);
    expect(ja.done).toBe(false);
    await h.advance(1);
    expect(ja.value.errorCode).toBe(0);
    expect(ja.value.members.map((m) => m.memberId)).toEqual([a]);
    const described = await h.describe('g');
    expect(described.groupState).toBe('CompletingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([a]);
    expect((await h.heartbeat('g', b, ja.value.generationId)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('PreparingRebalance → CompletingRebalance elects a new leader when the old one did not rejoin', async () => {
    const h = await harness();
    const { leader, memberIds } = await h.stableGroup('g', 2, { rebalanceTimeoutMs: 20_000, sessionTimeoutMs: 30_000 });
    const follower = memberIds.find((m) => m !== leader)!;
    // A changed subscription starts the rebalance; the leader never rejoins.
    const join = h.join('g', follower, {
      rebalanceTimeoutMs: 20_000,
      sessionTimeoutMs: 30_000,
      protocols: [{ name: 'range', metadata: { topics: ['orders', 'more'] } }],
    });
    await h.settle();
    expect(join.done).toBe(false);
    await h.advance(20_000);
    expect(join.value.leader).toBe(follower);
    expect(join.value.members.map((m) => m.memberId)).toEqual([follower]);
  });

  it('PreparingRebalance → Empty when the join phase completes without members, writing the empty group', async () => {
    const h = await harness();
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: memberIds[0] }] }, h.context());
    await h.settle();
    const described = await h.describe('g');
    expect(described.groupState).toBe('Empty');
    const records = h.store.records(h.partitionOf('g')).filter((r) => decodeKey(r.key).type === 'group-metadata');
    const last = decodeGroupMetadataValue(records[records.length - 1].value!);
    expect(last.generation).toBe(generationId + 1);
    expect(last.members).toEqual([]);
    expect(last.protocol).toBeNull();
  });

  it('PreparingRebalance (initial delay) waits the full delay even when everyone is in, and each new member extends it', async () => {
    const h = await harness({ config: { groupInitialRebalanceDelayMs: 3000 } });
    await expectSecondJoinerExtendsTheDelay(h, 1);
  });

  it('PreparingRebalance (initial delay) of a group that had generations before is extended by each new member too (Kafka 4.x: the rebalance started from Empty)', async () => {
    const h = await harness({ config: { groupInitialRebalanceDelayMs: 3000 } });
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: memberIds[0] }] }, h.context());
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Empty');
    await expectSecondJoinerExtendsTheDelay(h, generationId + 2);
  });

  it('PreparingRebalance (initial delay) is extended only by members that joined during this delay, not by one from an earlier rebalance', async () => {
    const h = await harness({ config: { groupInitialRebalanceDelayMs: 3000 } });
    // Rebalance timeout = delay: b's join marks an extension that the first phase has no time left to use.
    const a = await h.joinNew('g', { rebalanceTimeoutMs: 3000 });
    await h.advance(1000);
    const b = await h.joinNew('g', { rebalanceTimeoutMs: 3000 });
    await h.advance(2000);
    expect(a.join.value.generationId).toBe(1);
    await h.coordinator.leaveGroup(
      { groupId: 'g', members: [{ memberId: a.memberId }, { memberId: b.memberId }] },
      h.context(),
    );
    await h.settle();
    const c = await h.joinNew('g', { rebalanceTimeoutMs: 10_000 });
    await h.advance(3000);
    expect(c.join.value).toMatchObject({ errorCode: 0, generationId: 3 });
  });

  it('PreparingRebalance (initial delay) never waits longer than the rebalance timeout', async () => {
    const h = await harness({ config: { groupInitialRebalanceDelayMs: 3000 } });
    const first = await h.joinNew('g', { rebalanceTimeoutMs: 7000 });
    // New members keep extending the delay (3 s, then 3 s, then what is left of 7 s), but never past 7 s.
    await h.advance(2000);
    await h.joinNew('g', { rebalanceTimeoutMs: 7000 });
    await h.advance(3000);
    await h.joinNew('g', { rebalanceTimeoutMs: 7000 });
    await h.advance(1999);
    expect(first.join.done).toBe(false);
    await h.advance(1);
    expect(first.join.value).toMatchObject({ errorCode: 0, generationId: 1 });
  });
});
