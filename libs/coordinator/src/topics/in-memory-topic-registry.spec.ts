import { ManualClock } from '@cohort/replication';
import type { EncodedTimeIndexes } from './topic-catalog';
import { InMemoryTopicRegistry } from './in-memory-topic-registry';

describe('InMemoryTopicRegistry', () => {
  it('creates topics, grows them, refuses to shrink them and tells listeners after persisting', async () => {
    const persisted: string[] = [];
    const registry = new InMemoryTopicRegistry({
      persist: (topics) => void persisted.push(topics.map((t) => `${t.name}:${t.partitions}`).join(',')),
    });
    const heard: string[] = [];
    const unsubscribe = registry.onPartitionsChanged((t) => heard.push(`${t.name}:${t.partitions}`));
    await registry.create('orders', 3);
    await registry.setPartitions('orders', 5);
    await registry.setPartitions('orders', 5); // unchanged: nobody is told
    await expect(registry.setPartitions('orders', 2)).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' });
    await expect(registry.create('orders', 1)).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' });
    await expect(registry.setPartitions('ghosts', 2)).rejects.toMatchObject({
      errorName: 'UNKNOWN_TOPIC_OR_PARTITION',
    });
    unsubscribe();
    await registry.create('audit', 1);
    expect(heard).toEqual(['orders:3', 'orders:5']);
    expect(persisted).toEqual(['orders:3', 'orders:5', 'audit:1,orders:5']);
    expect(registry.list().map((t) => t.name)).toEqual(['audit', 'orders']);
    expect([
      registry.partitionCount('orders'),
      registry.partitionCount('audit'),
      registry.partitionCount('ghosts'),
    ]).toEqual([5, 1, undefined]);
  });

  it('validates names and counts like Kafka', async () => {
    const registry = new InMemoryTopicRegistry();
    for (const name of ['', '.', '..', 'has space', 'x'.repeat(250), 'ü']) {
      await expect(registry.create(name, 1)).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' });
    }
    for (const partitions of [0, -1, 1.5, Number.NaN]) {
      await expect(registry.create('t', partitions)).rejects.toMatchObject({ errorName: 'INVALID_REQUEST' });
    }
    expect(registry.list()).toEqual([]);
  });

  it('records reported end offsets per partition, refusing partitions that do not exist', async () => {
    const registry = new InMemoryTopicRegistry({ topics: [{ name: 't', partitions: 2, endOffsets: {} }] });
    await registry.setEndOffsets('t', [
      { partition: 0, endOffset: 10 },
      { partition: 1, endOffset: 3 },
    ]);
    await expect(
      registry.setEndOffsets('t', [
        { partition: 0, endOffset: 11 },
        { partition: 2, endOffset: 1 },
      ]),
    ).rejects.toMatchObject({
      errorName: 'UNKNOWN_TOPIC_OR_PARTITION',
    });
    expect(registry.get('t')!.endOffsets).toEqual({ 0: 10, 1: 3 });
    // Callers get copies: changing one changes nothing inside.
    registry.get('t')!.endOffsets[0] = 999;
    expect(registry.get('t')!.endOffsets[0]).toBe(10);
  });

  it('keeps a time index per partition, persisted with the topics and read back after a restart', async () => {
    const clock = new ManualClock(1_000_000);
    let saved: { topics: ReturnType<InMemoryTopicRegistry['list']>; timeIndexes: EncodedTimeIndexes } | undefined;
    const persist = (topics: ReturnType<InMemoryTopicRegistry['list']>, timeIndexes: EncodedTimeIndexes) =>
      void (saved = { topics, timeIndexes });
    const registry = new InMemoryTopicRegistry({
      topics: [{ name: 't', partitions: 2, endOffsets: {} }],
      clock,
      persist,
    });
    await registry.setEndOffsets('t', [{ partition: 0, endOffset: 100, startOffset: 40 }]); // dated on arrival
    clock.advance(10_000);
    await registry.setEndOffsets('t', [{ partition: 0, endOffset: 200, timestamp: 1_008_000 }]); // dated by the producer
    expect(registry.timeLagMs('t', 0, 150, 1_010_000)).toBe(6_000); // the end was 150 at 1,004,000
    expect(registry.timeLagMs('t', 1, 150, 1_010_000)).toBeNull();
    // As of a time: the latest report at or before it; before the first, the reported start offset.
    expect([999_999, 1_000_000, 1_007_999, 1_008_000].map((t) => registry.endOffsetAsOf('t', 0, t))).toEqual([
      40, 100, 100, 200,
    ]);
    expect(registry.endOffsetAsOf('t', 1, 2_000_000)).toBeUndefined();

    const restarted = new InMemoryTopicRegistry({ topics: saved!.topics, timeIndexes: saved!.timeIndexes, clock });
    expect(restarted.timeLagMs('t', 0, 150, 1_010_000)).toBe(6_000);
    expect(restarted.endOffsetAsOf('t', 0, 1_007_999)).toBe(100);
    // A file from before the index: it starts at the latest report.
    const older = new InMemoryTopicRegistry({ topics: saved!.topics, clock });
    expect(older.endOffsetAsOf('t', 0, 1_010_000)).toBe(200);
    expect(older.endOffsetAsOf('t', 0, 1_009_999)).toBe(40); // before its first entry (arrived at 1,010,000)
  });

  it('refuses a timestamp that is not milliseconds since the epoch, or more than an hour ahead', async () => {
    const clock = new ManualClock(1_000_000);
    const registry = new InMemoryTopicRegistry({ topics: [{ name: 't', partitions: 1, endOffsets: {} }], clock });
    for (const timestamp of [-1, 1.5, Number.NaN])
      await expect(registry.setEndOffsets('t', [{ partition: 0, endOffset: 1, timestamp }])).rejects.toMatchObject({
        errorName: 'INVALID_REQUEST',
      });
    await expect(
      registry.setEndOffsets('t', [{ partition: 0, endOffset: 1, timestamp: 1_000_000 + 3_600_001 }]),
    ).rejects.toMatchObject({ errorName: 'INVALID_TIMESTAMP' });
    await registry.setEndOffsets('t', [{ partition: 0, endOffset: 1, timestamp: 1_000_000 + 3_600_000 }]);
    expect(registry.get('t')!.endOffsets).toEqual({ 0: 1 });
  });
});
