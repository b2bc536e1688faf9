import { InMemoryTopicRegistry, type TopicInfo } from '@cohort/coordinator';
import { KafkaError } from '@cohort/protocol';
import { RealClock } from '@cohort/replication';
import { Redis } from 'ioredis';
import { RedisTopicRegistry } from './redis-topic-registry';

// Two nodes' registries on one cluster id of the test's own, in the machine's Redis: what one node
// writes, the other sees and is told about; bad input is refused exactly as in embedded mode.

const url = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let clusterId: string;
const opened: RedisTopicRegistry[] = [];

async function registry(): Promise<RedisTopicRegistry> {
  const r = await RedisTopicRegistry.connect({
    url,
    clusterId,
    clock: new RealClock(),
    onError: (e) => {
      throw e;
    },
  });
  opened.push(r);
  return r;
}

async function eventually(check: () => void): Promise<void> {
  for (let i = 0; ; i++) {
    try {
      return check();
    } catch (error) {
      if (i > 200) throw error;
      await sleep(10);
    }
  }
}

async function errorOf(call: Promise<unknown>): Promise<string> {
  return call.then(
    () => 'no error',
    (e: unknown) => (e instanceof KafkaError ? `${e.errorName}: ${e.message}` : String(e)),
  );
}

beforeEach(() => {
  clusterId = `test-topics-${process.pid}-${process.hrtime.bigint().toString(36)}`;
});

afterEach(async () => {
  await Promise.all(opened.splice(0).map((r) => r.close()));
  const admin = new Redis(url, { disconnectTimeout: 100 });
  const keys = await admin.keys(`${clusterId}:*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

describe('RedisTopicRegistry', () => {
  it('tells every node which partitions an end-offset report changed, once its copy holds the report', async () => {
    const a = await registry();
    const b = await registry();
    await a.create('jobs', 3);
    const heard: { node: string; topic: string; partitions: number[]; endOffset: number | undefined }[] = [];
    for (const [node, r] of [
      ['a', a],
      ['b', b],
    ] as const)
      r.onEndOffsetsChanged((topic, partitions) =>
        heard.push({ node, topic, partitions, endOffset: r.partitionOffsets(topic, partitions[0])?.endOffset }),
      );
    await a.setEndOffsets('jobs', [{ partition: 2, endOffset: 40 }]);
    await eventually(() =>
      expect(heard.filter((h) => h.node === 'b')).toEqual([
        { node: 'b', topic: 'jobs', partitions: [2], endOffset: 40 },
      ]),
    );
    expect(heard.filter((h) => h.node === 'a')).toContainEqual({
      node: 'a',
      topic: 'jobs',
      partitions: [2],
      endOffset: 40,
    });
  });

  it('tells a node of reports it reads with a whole topic, whose hints it missed', async () => {
    const a = await registry();
    const b = await registry();
    await a.create('jobs', 3);
    await eventually(() => expect(b.get('jobs')).toBeDefined());
    const heard: { topic: string; partitions: number[]; endOffset: number | undefined }[] = [];
    b.onEndOffsetsChanged((topic, partitions) =>
      heard.push({ topic, partitions, endOffset: b.partitionOffsets(topic, partitions[0])?.endOffset }),
    );
    // A report stored with no hint sent (as one sent while b's subscription was down), then the topic grows.
    const admin = new Redis(url, { disconnectTimeout: 100 });
    await admin.hset(`${clusterId}:topic-end-offsets:jobs`, '1', '40||1000|');
    await admin.quit();
    await a.setPartitions('jobs', 4);
    await eventually(() => expect(heard).toEqual([{ topic: 'jobs', partitions: [1], endOffset: 40 }]));
  });

  it('shares topics between nodes and tells every node when one is created or grows', async () => {
    const a = await registry();
    const b = await registry();
    const heardOnB: TopicInfo[] = [];
    b.onPartitionsChanged((t) => heardOnB.push(t));
    expect(await a.create('orders', 3)).toEqual({
      name: 'orders',
      partitions: 3,
      endOffsets: {},
      startOffsets: {},
      reportedAt: {},
    });
    await eventually(() =>
      expect(b.get('orders')).toEqual({
        name: 'orders',
        partitions: 3,
        endOffsets: {},
        startOffsets: {},
        reportedAt: {},
      }),
    );
    expect(await b.setPartitions('orders', 5)).toEqual({
      name: 'orders',
      partitions: 5,
      endOffsets: {},
      startOffsets: {},
      reportedAt: {},
    });
    await eventually(() => expect(a.get('orders')?.partitions).toBe(5));
    expect([a.partitionCount('orders'), a.partitionCount('missing')]).toEqual([5, undefined]);
    expect(heardOnB.map((t) => t.partitions)).toEqual([3, 5]);
    await a.setEndOffsets('orders', [{ partition: 4, endOffset: 120 }]);
    await eventually(() => expect(b.get('orders')?.endOffsets).toEqual({ 4: 120 }));
    // A node that starts later loads everything.
    const c = await registry();
    expect(c.list()).toEqual([
      {
        name: 'orders',
        partitions: 5,
        endOffsets: { 4: 120 },
        startOffsets: {},
        reportedAt: { 4: expect.any(Number) },
      },
    ]);
  });

  it('refuses what the embedded registry refuses, with the same errors, and changes nothing', async () => {
    const a = await registry();
    const reference = new InMemoryTopicRegistry();
    await a.create('t', 2);
    await reference.create('t', 2);
    const cases: Array<(r: InMemoryTopicRegistry | RedisTopicRegistry) => Promise<unknown>> = [
      (r) => r.create('t', 4),
      (r) => r.create('bad name!', 1),
      (r) => r.create('u', 0),
      (r) => r.setPartitions('t', 1),
      (r) => r.setPartitions('missing', 3),
      (r) => r.setEndOffsets('t', [{ partition: 2, endOffset: 1 }]),
      (r) => r.setEndOffsets('t', [{ partition: 0, endOffset: -5 }]),
    ];
    for (const attempt of cases) expect(await errorOf(attempt(a))).toBe(await errorOf(attempt(reference)));
    expect(a.list()).toEqual([{ name: 't', partitions: 2, endOffsets: {}, startOffsets: {}, reportedAt: {} }]);
  });

  it('lets exactly one of two nodes create the same topic at once', async () => {
    const [a, b] = await Promise.all([registry(), registry()]);
    const outcomes = await Promise.all([errorOf(a.create('race', 2)), errorOf(b.create('race', 7))]);
    expect(outcomes.filter((o) => o === 'no error')).toHaveLength(1);
    expect(outcomes.filter((o) => o.startsWith('INVALID_REQUEST'))).toHaveLength(1);
    await eventually(() => expect(a.get('race')).toEqual(b.get('race')));
  });

  it("shares each partition's time index: every node answers time lag and resets by time alike, after a restart too", async () => {
    const a = await registry();
    const b = await registry();
    await a.create('orders', 2);
    await a.setEndOffsets('orders', [{ partition: 0, endOffset: 100, startOffset: 40, timestamp: 1_000_000 }]);
    await b.setEndOffsets('orders', [{ partition: 0, endOffset: 200, timestamp: 1_010_000 }]);
    await eventually(() => expect(a.timeLagMs('orders', 0, 150, 1_020_000)).toBe(15_000));
    expect(b.timeLagMs('orders', 0, 150, 1_020_000)).toBe(15_000);
    expect([999_999, 1_000_000, 1_010_000].map((t) => a.endOffsetAsOf('orders', 0, t))).toEqual([40, 100, 200]);
    // Only the reported partition travels: partition 1 stays unknown everywhere.
    expect(a.timeLagMs('orders', 1, 0, 1_020_000)).toBeNull();
    const c = await registry();
    expect(c.timeLagMs('orders', 0, 150, 1_020_000)).toBe(15_000);
    expect(c.get('orders')?.startOffsets).toEqual({ 0: 40 });
  });

  it('loses no index entry when another node reports the partition between our read and our write', async () => {
    const a = await registry();
    const b = await registry();
    await a.create('busy', 1);
    await a.setEndOffsets('busy', [{ partition: 0, endOffset: 100, timestamp: 1_000_000 }]);
    await eventually(() => expect(b.get('busy')?.endOffsets).toEqual({ 0: 100 }));
    // Node b's report lands right after node a has read the partition for its own.
    const internals = a as unknown as { reloadPartitions(name: string, partitions: number[]): Promise<unknown> };
    const read = internals.reloadPartitions.bind(a);
    let interleaved = false;
    jest.spyOn(internals, 'reloadPartitions').mockImplementation(async (name, partitions) => {
      const result = await read(name, partitions);
      if (!interleaved) {
        interleaved = true;
        await b.setEndOffsets('busy', [{ partition: 0, endOffset: 200, timestamp: 1_010_000 }]);
      }
      return result;
    });
    await a.setEndOffsets('busy', [{ partition: 0, endOffset: 300, timestamp: 1_020_000 }]);
    // a read again and merged onto b's report: all three entries, on every node.
    const fresh = await registry();
    for (const r of [a, b, fresh]) {
      await eventually(() => expect(r.get('busy')?.endOffsets).toEqual({ 0: 300 }));
      expect([1_000_000, 1_010_000, 1_020_000].map((t) => r.endOffsetAsOf('busy', 0, t))).toEqual([100, 200, 300]);
    }
  });

  it('takes many concurrent reports of one partition through two nodes without refusing any', async () => {
    const a = await registry();
    const b = await registry();
    await a.create('many', 1);
    await eventually(() => expect(b.get('many')).toBeDefined());
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        (i % 2 ? a : b).setEndOffsets('many', [{ partition: 0, endOffset: 10 * (i + 1), timestamp: 1_000 * (i + 1) }]),
      ),
    );
    const fresh = await registry();
    await eventually(() => expect(a.get('many')).toEqual(fresh.get('many')));
    expect(fresh.endOffsetAsOf('many', 0, 1e12)).toBe(fresh.get('many')!.endOffsets[0]);
  });
});
