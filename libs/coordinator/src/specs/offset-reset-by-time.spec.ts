import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * `--to-datetime` / `--by-duration` (docs/lag.md, docs/operations.md): Kafka's ListOffsets by timestamp
 * over the end-offset time index, under the harness's clock.
 */
describe('offset resets by datetime and duration', () => {
  let h: CoordinatorHarness;
  let start: number;
  beforeEach(async () => {
    h = new CoordinatorHarness({ topics: [{ name: 'orders', partitions: 3 }] });
    await h.settle();
    start = h.clock.now();
    // Partition 0 ends at 100, 200, 300 reported at start, +10 min, +20 min (start offset 50);
    // partition 1 at 10 then 20 (no start offset); partition 2 is never reported.
    await h.topics.setEndOffsets('orders', [
      { partition: 0, endOffset: 100, startOffset: 50 },
      { partition: 1, endOffset: 10 },
    ]);
    await h.advance(600_000);
    await h.topics.setEndOffsets('orders', [{ partition: 0, endOffset: 200 }]);
    await h.advance(600_000);
    await h.topics.setEndOffsets('orders', [
      { partition: 0, endOffset: 300 },
      { partition: 1, endOffset: 20 },
    ]);
    await h.advance(600_000); // now: start + 30 min
    h.commit('g', -1, '', { orders: { 0: 250, 1: 15 } });
    await h.settle();
  });

  const newOffsets = async (request: object) =>
    (
      await h.coordinator.resetOffsetsTo('g', {
        topics: [{ name: 'orders', partitions: [0, 1] }],
        strategy: 'earliest',
        ...request,
      })
    ).offsets.map((o) => o.newOffset);
  const iso = (ms: number) => new Date(ms).toISOString();

  it('goes to the latest report at or before the time, stepping (never interpolating) between reports', async () => {
    expect(await newOffsets({ strategy: 'datetime', datetime: iso(start + 600_000) })).toEqual([200, 10]);
    expect(await newOffsets({ strategy: 'datetime', datetime: iso(start + 600_000 - 1) })).toEqual([100, 10]);
    expect(await newOffsets({ strategy: 'duration', duration: 'PT15M' })).toEqual([200, 10]);
    expect(await newOffsets({ strategy: 'duration', duration: 'PT10M' })).toEqual([300, 20]);
  });

  it('before the first report: the reported start offset, else the earliest report', async () => {
    expect(await newOffsets({ strategy: 'duration', duration: 'PT1H' })).toEqual([50, 10]);
  });

  it('after the latest report, or in the future: the latest end offset, as Kafka falls back to it', async () => {
    expect(await newOffsets({ strategy: 'datetime', datetime: '2999-01-01T00:00:00.000' })).toEqual([300, 20]);
    expect(await newOffsets({ strategy: 'duration', duration: '-PT1H' })).toEqual([300, 20]);
  });

  it('reads a datetime without a zone as UTC and one with an offset as such', async () => {
    const at = new Date(start + 600_000);
    const plusTwo = new Date(at.getTime() + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    expect(await newOffsets({ strategy: 'datetime', datetime: iso(at.getTime()).replace('Z', '') })).toEqual([200, 10]);
    expect(await newOffsets({ strategy: 'datetime', datetime: plusTwo })).toEqual([200, 10]);
  });

  it('refuses a bad datetime or duration, a missing one, and partitions without any report', async () => {
    await expect(newOffsets({ strategy: 'datetime', datetime: '05/12/2026' })).rejects.toMatchObject({
      errorName: 'INVALID_REQUEST',
    });
    await expect(newOffsets({ strategy: 'datetime' })).rejects.toThrow(/needs a datetime/);
    await expect(newOffsets({ strategy: 'duration', duration: 'P1M' })).rejects.toThrow(/ISO-8601 duration/);
    await expect(
      h.coordinator.resetOffsetsTo('g', { topics: [{ name: 'orders' }], strategy: 'duration', duration: 'PT1M' }),
    ).rejects.toThrow(/no end offset has been reported for orders-2/);
  });

  it('executes the plan like any reset, once the group is Empty', async () => {
    const result = await h.coordinator.resetOffsetsTo('g', {
      allTopics: true,
      strategy: 'duration',
      duration: 'PT25M',
      dryRun: false,
    });
    await h.settle();
    expect(result.offsets).toEqual([
      { topic: 'orders', partition: 0, currentOffset: 250, newOffset: 100 },
      { topic: 'orders', partition: 1, currentOffset: 15, newOffset: 10 },
    ]);
    expect((await h.coordinator.committedOffsets('g')).map((o) => o.committedOffset)).toEqual([100, 10]);
  });
});
