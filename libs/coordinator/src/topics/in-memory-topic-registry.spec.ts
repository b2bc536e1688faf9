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
});
