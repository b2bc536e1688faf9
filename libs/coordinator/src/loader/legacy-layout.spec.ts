import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LocalPartitionStore, RealClock } from '@cohort/replication';
import { coordinatorConfig } from '../ports/coordinator-config';
import { GroupCoordinator } from '../group-coordinator';
import { StaticAssignorLookup } from '../ports/server-assignor.port';
import { offsetCommitRecord, offsetTombstone } from '../records/record-builders';
import { offsetCommitKey } from '../records/record-codec';
import { InMemoryTopicRegistry } from '../topics/in-memory-topic-registry';
import { RecordingPushSink } from '@cohort/coordinator/testing';

/** A data directory written before offset values were binary still loads, and newer records still win over its. */
describe('loading a data directory written with JSON offset values', () => {
  let dataDir: string;
  const clock = new RealClock();
  const topics = new InMemoryTopicRegistry({ topics: [{ name: 'orders', partitions: 4, endOffsets: {} }] });
  const config = coordinatorConfig({ numPartitions: 1, groupInitialRebalanceDelayMs: 0, loadBatchRecords: 2 });

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'cohort-legacy-'));
  });
  afterEach(() => fs.rmSync(dataDir, { recursive: true, force: true }));

  it('serves the offsets of JSON records, with later binary records and tombstones applied over them', async () => {
    const store = await LocalPartitionStore.open({ dataDir, clock, numPartitions: 1, cleaner: false });
    const json = (partition: number, value: object) => ({
      key: offsetCommitKey('g', 'orders', partition),
      value: Buffer.from(JSON.stringify(value)),
      timestamp: 1,
    });
    store.append(0, store.leaderEpoch, [
      json(0, { v: 3, offset: 10, leaderEpoch: 2, metadata: 'old', commitTimestamp: 100 }),
      json(1, { v: 3, offset: 11, leaderEpoch: 2, metadata: '', commitTimestamp: 100 }),
      json(2, { v: 1, offset: 12, leaderEpoch: -1, metadata: 'x', commitTimestamp: 100, expireTimestamp: 900 }),
      json(3, { v: 3, offset: 13, leaderEpoch: 2, metadata: '', commitTimestamp: 100 }),
    ]);
    store.append(0, store.leaderEpoch, [
      offsetCommitRecord('g', 'orders', 1, {
        offset: 21,
        leaderEpoch: 3,
        metadata: 'new',
        commitTimestamp: 200,
        expireTimestamp: null,
      }),
      offsetTombstone('g', 'orders', 3, 200),
    ]);
    await store.close();

    const reopened = await LocalPartitionStore.open({ dataDir, clock, numPartitions: 1, cleaner: false });
    const coordinator = new GroupCoordinator({
      store: reopened,
      clock,
      config,
      topics,
      assignors: new StaticAssignorLookup(),
      push: new RecordingPushSink(),
    });
    try {
      coordinator.start();
      await until(() => coordinator.servingPartitions().length === 1);
      expect(await coordinator.committedOffsets('g')).toEqual([
        { topic: 'orders', partition: 0, committedOffset: 10, leaderEpoch: 2, metadata: 'old', commitTimestamp: 100 },
        { topic: 'orders', partition: 1, committedOffset: 21, leaderEpoch: 3, metadata: 'new', commitTimestamp: 200 },
        { topic: 'orders', partition: 2, committedOffset: 12, leaderEpoch: -1, metadata: 'x', commitTimestamp: 100 },
      ]);
    } finally {
      coordinator.close();
      await reopened.close();
    }
  });
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
