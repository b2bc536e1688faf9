import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * Burrow's rules (docs/lag.md) over scripted histories: commits of an Empty group (generation -1,
 * as admin tools and simple consumers commit) and end-offset reports, under the harness's clock.
 */
describe('GET /v1/groups/:groupId/lag: Burrow evaluation of a scripted history', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({ topics: [{ name: 'orders', partitions: 2 }] });
    await h.settle();
  });

  /** Every `everyMs`: the producer reports `ends[i]`, then the consumer commits `commits[i]`. */
  async function script(commits: number[], ends: number[], everyMs = 10_000, partition = 0): Promise<void> {
    for (let i = 0; i < commits.length; i++) {
      await h.topics.setEndOffsets('orders', [{ partition, endOffset: ends[i] }]);
      const commit = h.commit('g', -1, '', { orders: { [partition]: commits[i] } });
      await h.settle();
      expect(commit.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
      await h.advance(everyMs);
    }
  }

  const statusOf = async (partition = 0) =>
    (await h.coordinator.groupLag('g')).partitions.find((p) => p.partition === partition)!.status;

  it('rule 1: lag that reached zero anywhere in the window is OK, even if it grows again', async () => {
    await script([10, 20, 30, 40], [20, 20, 50, 70]);
    const lag = await h.coordinator.groupLag('g');
    expect(lag).toMatchObject({ groupId: 'g', status: 'OK', totalLag: 30, maxLag: 30 });
    expect(lag.partitions[0]).toMatchObject({ committedOffset: 40, logEndOffset: 70, lag: 30, status: 'OK' });
  });

  it('rule 2: an offset that went backwards is ERR (Burrow REWIND)', async () => {
    await script([50, 60, 40, 45], [100, 110, 120, 130]);
    expect(await statusOf()).toBe('ERR');
  });

  it('rule 3: no commit for longer than the window spans is STOP', async () => {
    await script([10, 20, 30], [100, 110, 120]); // window spans 20 s
    await h.advance(15_000); // 25 s since the last commit
    expect(await statusOf()).toBe('STOP');
  });

  it('rule 4: commits that keep the same offset while there is lag are STALL', async () => {
    await script([30, 30, 30, 30], [100, 110, 120, 130], 5_000);
    expect(await statusOf()).toBe('STALL');
    expect((await h.coordinator.groupLag('g')).status).toBe('STALL');
  });

  it('rule 5: offsets that advance while the lag never shrinks are WARN', async () => {
    await script([10, 20, 30, 40], [100, 120, 140, 160], 5_000);
    expect(await statusOf()).toBe('WARN');
  });

  it('a consumer that keeps up with lag going down is OK', async () => {
    await script([10, 40, 70, 95], [100, 110, 120, 130], 5_000);
    expect(await statusOf()).toBe('OK');
  });

  it('a partition without a reported end offset is UNKNOWN, and so is a group with nothing else', async () => {
    h.commit('g', -1, '', { orders: { 1: 5 } });
    await h.settle();
    // No end offset reported: the totals are unknown (null), not a zero that reads as "caught up".
    expect(await h.coordinator.groupLag('g')).toMatchObject({
      status: 'UNKNOWN',
      totalLag: null,
      maxLag: null,
      maxTimeLagMs: null,
      partitions: [
        {
          topic: 'orders',
          partition: 1,
          committedOffset: 5,
          logEndOffset: null,
          lag: null,
          timeLagMs: null,
          status: 'UNKNOWN',
        },
      ],
    });
  });

  it('the group is as bad as its worst partition', async () => {
    await script([10, 20, 30, 40], [100, 120, 140, 160], 5_000, 0); // WARN
    await script([30, 30, 30, 30], [100, 110, 120, 130], 5_000, 1); // STALL, while partition 0 keeps its window
    expect((await h.coordinator.groupLag('g')).partitions.map((p) => p.status)).toEqual(['STOP', 'STALL']);
    expect((await h.coordinator.groupLag('g')).status).toBe('STALL');
  });

  it('keeps a bounded history of commits a second apart at least, with the latest report after them', async () => {
    await script(
      Array.from({ length: 15 }, (_, i) => i * 10),
      Array.from({ length: 15 }, (_, i) => i * 10 + 5),
      2_000,
    );
    // Two commits 100 ms apart: the second replaces the first and keeps its timestamp.
    const at = h.clock.now();
    h.commit('g', -1, '', { orders: { 0: 150 } });
    await h.advance(100);
    h.commit('g', -1, '', { orders: { 0: 152 } });
    await h.advance(100);
    await h.topics.setEndOffsets('orders', [{ partition: 0, endOffset: 160 }]);
    const { history } = (await h.coordinator.groupLag('g')).partitions[0];
    expect(history).toHaveLength(11);
    expect(history[8]).toEqual({ timestamp: at - 2_000, committedOffset: 140, logEndOffset: 145, lag: 5 });
    expect(history[9]).toEqual({ timestamp: at, committedOffset: 152, logEndOffset: 145, lag: 0 });
    expect(history[10]).toEqual({ timestamp: at + 200, committedOffset: 152, logEndOffset: 160, lag: 8 });
  });

  it('answers GROUP_ID_NOT_FOUND for a group that does not exist', async () => {
    await expect(h.coordinator.groupLag('nobody')).rejects.toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
  });

  it('time lag: how long ago the committed offset was the log end, from the reports and their dates', async () => {
    const start = h.clock.now();
    // Reports every 10 s by arrival: ends 100, 200, 300 at start, +10 s, +20 s.
    for (const endOffset of [100, 200, 300]) {
      await h.topics.setEndOffsets('orders', [{ partition: 0, endOffset }]);
      await h.advance(10_000);
    }
    h.commit('g', -1, '', { orders: { 0: 150, 1: 7 } });
    await h.settle();
    await h.advance(5_000); // now: start + 35 s
    // 150 lies half way from 100 (start) to 200 (+10 s): the end was 150 at +5 s, 30 s ago.
    let lag = await h.coordinator.groupLag('g');
    expect(lag.partitions[0]).toMatchObject({ lag: 150, timeLagMs: 30_000 });
    expect(lag.partitions[1]).toMatchObject({ lag: null, timeLagMs: null });
    expect(lag).toMatchObject({ totalLag: 150, maxLag: 150, maxTimeLagMs: 30_000 });
    // A report dated by the producer: the end was 400 at +30 s (reported 5 s later).
    await h.topics.setEndOffsets('orders', [{ partition: 0, endOffset: 400, timestamp: start + 30_000 }]);
    h.commit('g', -1, '', { orders: { 0: 350 } });
    await h.settle();
    lag = await h.coordinator.groupLag('g');
    expect(lag.partitions[0]).toMatchObject({ lag: 50, timeLagMs: 10_000 }); // 350 was the end at +25 s
    // Time passes, nothing is consumed or reported: the time lag grows with the clock.
    await h.advance(60_000);
    expect((await h.coordinator.groupLag('g')).maxTimeLagMs).toBe(70_000);
    // Caught up: no lag in time either.
    h.commit('g', -1, '', { orders: { 0: 400 } });
    await h.settle();
    expect((await h.coordinator.groupLag('g')).partitions[0]).toMatchObject({ lag: 0, timeLagMs: 0 });
  });
});
