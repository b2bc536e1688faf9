import { offsetCommitKey } from '../records/record-codec';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

const MINUTE = 60_000;

/** Retention of 10 minutes, purged every minute. */
async function harness(): Promise<{ h: CoordinatorHarness; expired: number[] }> {
  const expired: number[] = [];
  const h = new CoordinatorHarness({
    topics: [
      { name: 'orders', partitions: 2 },
      { name: 'legacy', partitions: 1 },
    ],
    config: { offsetsRetentionMinutes: 10, offsetsRetentionCheckIntervalMs: MINUTE },
    metrics: { onOffsetsExpired: (n) => expired.push(n) },
  });
  await h.settle();
  return { h, expired };
}

async function offsets(h: CoordinatorHarness, groupId: string): Promise<string[]> {
  return (await h.coordinator.committedOffsets(groupId)).map((o) => `${o.topic}-${o.partition}`);
}

/** A consumer group that committed orders-0, stayed Stable 20 minutes (twice the retention), then emptied now. */
async function emptiedLongAfterItsCommit(): Promise<CoordinatorHarness> {
  const { h } = await harness();
  const { memberIds, generationId } = await h.stableGroup('g', 1, { sessionTimeoutMs: 1_800_000 });
  h.commit('g', generationId, memberIds[0], { orders: { 0: 1 } });
  await h.settle();
  await h.advance(20 * MINUTE);
  await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: memberIds[0] }] }, h.context());
  return h;
}

describe('offset retention (KIP-211)', () => {
  it('an offsets-only group loses each offset retention after its commit', async () => {
    const { h, expired } = await harness();
    h.commit('simple', -1, '', { orders: { 0: 1 } });
    await h.settle();
    await h.advance(5 * MINUTE);
    h.commit('simple', -1, '', { orders: { 1: 2 } });
    await h.settle();
    await h.advance(5 * MINUTE);
    expect(await offsets(h, 'simple')).toEqual(['orders-1']);
    expect(expired).toEqual([1]);
    await h.advance(5 * MINUTE);
    expect((await h.describe('simple')).groupState).toBe('Dead');
  });

  it('a Stable consumer group keeps offsets of topics it subscribes to, and loses the others retention after their commit', async () => {
    const { h } = await harness();
    const { memberIds, generationId } = await h.stableGroup('g', 1, { sessionTimeoutMs: 1_800_000 });
    h.commit('g', generationId, memberIds[0], { orders: { 0: 1 }, legacy: { 0: 2 } });
    await h.settle();
    await h.advance(9 * MINUTE);
    expect(await offsets(h, 'g')).toEqual(['legacy-0', 'orders-0']);
    await h.advance(6 * MINUTE);
    expect(await offsets(h, 'g')).toEqual(['orders-0']);
  });

  it('an Empty consumer group keeps all its offsets until it has been Empty for the retention period, however old they are', async () => {
    const h = await emptiedLongAfterItsCommit();
    await h.advance(9 * MINUTE);
    expect(await offsets(h, 'g')).toEqual(['orders-0']);
    await h.advance(1 * MINUTE);
    expect((await h.describe('g')).groupState).toBe('Dead');
  });

  it('after a restart, an Empty group still counts its retention from when it became Empty (the persisted state timestamp), not from the reload', async () => {
    const h = await emptiedLongAfterItsCommit();
    await h.advance(6 * MINUTE);
    await h.restart();
    expect((await h.describe('g')).groupState).toBe('Empty');
    await h.advance(3 * MINUTE);
    expect(await offsets(h, 'g')).toEqual(['orders-0']);
    await h.advance(1 * MINUTE);
    expect((await h.describe('g')).groupState).toBe('Dead');
  });

  it('a group that is rebalancing never loses offsets', async () => {
    const { h } = await harness();
    const { memberIds, generationId } = await h.stableGroup('g', 2, {
      sessionTimeoutMs: 1_800_000,
      rebalanceTimeoutMs: 1_800_000,
    });
    h.commit('g', generationId, memberIds[0], { legacy: { 0: 1 } });
    await h.settle();
    h.join('g', memberIds[0], { sessionTimeoutMs: 1_800_000, rebalanceTimeoutMs: 1_800_000 });
    await h.advance(20 * MINUTE);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    expect(await offsets(h, 'g')).toEqual(['legacy-0']);
  });

  it('a partition with a commit in flight does not expire', async () => {
    const { h } = await harness();
    h.commit('simple', -1, '', { orders: { 0: 1 } });
    await h.settle();
    await h.advance(9 * MINUTE);
    h.store.autoCommit = false;
    h.commit('simple', -1, '', { orders: { 0: 2 } });
    await h.advance(2 * MINUTE);
    expect(
      (await h.fetch('simple', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(1);
    expect(h.store.records(h.partitionOf('simple')).filter((r) => r.value === null)).toEqual([]);
  });

  it('a legacy commit with its own expiry timestamp expires then', async () => {
    const { h } = await harness();
    const partition = h.partitionOf('simple');
    const now = h.clock.now();
    h.store.append(partition, h.store.leaderEpoch(partition)!, [
      {
        key: offsetCommitKey('simple', 'legacy', 0),
        value: Buffer.from(
          JSON.stringify({ v: 1, offset: 3, metadata: '', commitTimestamp: now, expireTimestamp: now + 2 * MINUTE }),
        ),
        timestamp: now,
      },
    ]);
    await h.restart();
    await h.advance(2 * MINUTE);
    expect((await h.describe('simple')).groupState).toBe('Dead');
  });
});
