import { ErrorCode, KafkaError } from '@cohort/protocol';
import { ManualClock } from '@cohort/replication';
import { FakePartitionStore } from '../testing/fake-partition-store';
import type { WriteResult } from './shard-writer';
import { ShardWriter } from './shard-writer';

const record = { key: Buffer.from('[2,"g"]'), value: Buffer.from('{}'), timestamp: 0 };

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('ShardWriter', () => {
  let clock: ManualClock;
  let store: FakePartitionStore;
  let failures: number[];
  let writer: ShardWriter;
  beforeEach(() => {
    clock = new ManualClock();
    store = new FakePartitionStore(clock);
    const epoch = store.elect(3);
    failures = [];
    writer = new ShardWriter(store, 3, epoch, 1000, { onFailure: (code) => failures.push(code), onCallbackError: (e) => { throw e; } });
  });

  it('reports a write only once it is committed, with the offsets it got', async () => {
    const results: WriteResult[] = [];
    writer.write([record, record], (r) => results.push(r));
    await settle();
    expect(results).toEqual([]);
    store.advanceHighWatermark(3, 1); // only the first record
    await settle();
    expect(results).toEqual([]);
    store.advanceHighWatermark(3);
    await settle();
    expect(results).toEqual([{ ok: true, baseOffset: 0, lastOffset: 1 }]);
  });

  it('reports a refused append asynchronously, and a timeout as REQUEST_TIMED_OUT', async () => {
    const results: WriteResult[] = [];
    store.failNextAppend(3, new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS));
    writer.write([record], (r) => results.push(r));
    expect(results).toEqual([]);
    await settle();
    writer.write([record], (r) => results.push(r));
    clock.advance(1000);
    await settle();
    expect(results.map((r) => (r.ok ? 0 : r.storeError))).toEqual([ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.REQUEST_TIMED_OUT]);
    expect(failures).toEqual([ErrorCode.NOT_ENOUGH_REPLICAS, ErrorCode.REQUEST_TIMED_OUT]);
  });

  it('closing fails every pending write with NOT_COORDINATOR at once; a later commit of the same records is ignored', async () => {
    const results: WriteResult[] = [];
    writer.write([record], (r) => results.push(r));
    await settle();
    writer.close();
    expect(results).toEqual([{ ok: false, storeError: ErrorCode.NOT_COORDINATOR, message: 'this node no longer leads the partition' }]);
    store.advanceHighWatermark(3);
    await settle();
    expect(results).toHaveLength(1);
    writer.write([record], (r) => results.push(r));
    await settle();
    expect(results[1]).toMatchObject({ ok: false, storeError: ErrorCode.NOT_COORDINATOR });
    expect(writer.pendingWrites).toBe(0);
  });
});
