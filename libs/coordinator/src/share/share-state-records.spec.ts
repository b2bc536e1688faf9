import { SharePartition, type SharePartitionLimits } from './share-partition';
import { AcknowledgeType as T } from './share-acknowledge-batches';
import { RecordState } from './share-partition-runs';
import {
  decodeSharePartitionSnapshot,
  decodeSharePartitionStateKey,
  sharePartitionStateRecord,
  type SharePartitionSnapshot,
} from './share-state-records';
import { partitionFromSnapshot, snapshotOf } from './share-state-snapshot';
import { ShareStateReplay } from './share-state-replay';

const LIMITS: SharePartitionLimits = { deliveryCountLimit: 3, maxRecordLocks: 100, lockDurationMs: 30_000 };
const { AVAILABLE, ACKNOWLEDGED } = RecordState;

function roundTrip(sp: SharePartition): SharePartitionSnapshot {
  const record = sharePartitionStateRecord({ groupId: 'g', topic: 't', partition: 2 }, snapshotOf(sp), 5);
  expect(decodeSharePartitionStateKey(JSON.parse(record.key.toString()))).toEqual({
    groupId: 'g',
    topic: 't',
    partition: 2,
  });
  return decodeSharePartitionSnapshot(record.value!);
}

describe('share partition state records', () => {
  it('writes a held offset as available at the count it was leased at, and loads it unheld', () => {
    const sp = new SharePartition(0, 0);
    sp.reportEnd(10);
    const { change } = sp.acquire('m1', 10, 10, 0, LIMITS);
    sp.complete(change!, true, 0, LIMITS);
    const ack = sp.acknowledge(
      'm1',
      [{ firstOffset: 0, lastOffset: 9, acknowledgeTypes: [1, 1, 3, 2, 2, 1, 1, 1, 1, 1] }],
      0,
      LIMITS,
    );
    sp.complete(ack.change!, true, 0, LIMITS);
    const snapshot = roundTrip(sp);
    expect(snapshot).toEqual({
      stateEpoch: 0,
      startOffset: 3,
      endOffset: 10,
      ranges: [
        { first: 3, last: 4, state: AVAILABLE, count: 1, reason: null },
        { first: 5, last: 9, state: ACKNOWLEDGED, count: 1, reason: null },
      ],
      deadLetters: [{ first: 2, last: 2, reason: 'rejected', count: 1 }],
    });
    const { partition } = partitionFromSnapshot(snapshot, LIMITS);
    expect(partition.acquire('m2', 10, 10, 0, LIMITS).leases).toEqual([
      { firstOffset: 3, lastOffset: 4, deliveryCount: 2 },
    ]);
  });

  it('archives on load what reached the delivery limit and moves SPSO past it', () => {
    const snapshot: SharePartitionSnapshot = {
      stateEpoch: 0,
      startOffset: 0,
      endOffset: 4,
      ranges: [
        { first: 0, last: 1, state: AVAILABLE, count: 3, reason: null },
        { first: 2, last: 3, state: AVAILABLE, count: 1, reason: null },
      ],
      deadLetters: [],
    };
    const { partition, changed } = partitionFromSnapshot(snapshot, LIMITS);
    expect(changed).toBe(true);
    expect(partition.startOffset).toBe(2);
    expect(partition.deadLetterList()).toEqual([{ first: 0, last: 1, reason: 'delivery-limit', count: 3 }]);
  });

  it('refuses a value whose ranges are out of order', () => {
    const bad = Buffer.from(
      JSON.stringify({
        v: 0,
        stateEpoch: 0,
        startOffset: 0,
        endOffset: 5,
        ranges: [
          [3, 4, 0, 1, 0],
          [0, 2, 0, 1, 0],
        ],
        deadLetters: [],
      }),
    );
    expect(() => decodeSharePartitionSnapshot(bad)).toThrow('out of order');
  });

  it('a redelivery inside the window, then the lease and ACCEPT of what came back, survive a replay of every record', () => {
    const key = { groupId: 'g', topic: 't', partition: 2 };
    const replay = new ShareStateReplay();
    const written = () => replay.apply(key, sharePartitionStateRecord(key, snapshotOf(sp), 5).value);
    const sp = new SharePartition(0, 0);
    sp.reportEnd(4);
    sp.complete(sp.acquire('m1', 10, 10, 0, LIMITS).change!, true, 0, LIMITS);
    // Offset 0 stays held, so SPSO stays at 0 and the rejected 1-2 are dead letters inside the window.
    const rejected = sp.acknowledge('m1', [{ firstOffset: 1, lastOffset: 2, acknowledgeTypes: [T.REJECT] }], 0, LIMITS);
    sp.complete(rejected.change!, true, 0, LIMITS);
    written();
    expect(sp.redeliver(1, 2)).toBe(2);
    written();
    const again = sp.acquire('m2', 2, 10, 0, LIMITS);
    expect(again.leases).toEqual([{ firstOffset: 1, lastOffset: 2, deliveryCount: 1 }]);
    sp.complete(again.change!, true, 0, LIMITS);
    written();
    const accepted = sp.acknowledge('m2', [{ firstOffset: 1, lastOffset: 2, acknowledgeTypes: [T.ACCEPT] }], 0, LIMITS);
    sp.complete(accepted.change!, true, 0, LIMITS);
    written();
    // The redelivery counted 1-2 from zero again (a new state epoch); the load takes the last record,
    // not the older ARCHIVED at count 1.
    const { partition } = partitionFromSnapshot(replay.list()[0].snapshot, LIMITS);
    expect(partition.deadLetterList()).toEqual([]);
    expect(partition.summary(0)).toMatchObject({ acknowledged: 2, archived: 0 });
    expect(partition.redeliver(0, 3)).toBe(0);
  });

  it('keeps a redelivery below SPSO across a reload (state epoch and counts from zero)', () => {
    const sp = new SharePartition(0, 0);
    sp.reportEnd(4);
    const { change } = sp.acquire('m1', 10, 10, 0, LIMITS);
    sp.complete(change!, true, 0, LIMITS);
    sp.complete(
      sp.acknowledge('m1', [{ firstOffset: 0, lastOffset: 3, acknowledgeTypes: [T.REJECT] }], 0, LIMITS).change!,
      true,
      0,
      LIMITS,
    );
    expect(sp.redeliver(1, 2)).toBe(2);
    const { partition } = partitionFromSnapshot(roundTrip(sp), LIMITS);
    expect(partition.stateEpoch).toBe(1);
    expect(partition.deadLetterList()).toEqual([
      { first: 0, last: 0, reason: 'rejected', count: 1 },
      { first: 3, last: 3, reason: 'rejected', count: 1 },
    ]);
    expect(partition.acquire('m2', 10, 10, 0, LIMITS).leases).toEqual([
      { firstOffset: 1, lastOffset: 2, deliveryCount: 1 },
    ]);
  });

  it('replays an offset reset over the state before it', () => {
    const worked = new SharePartition(0, 0);
    worked.reportEnd(8);
    const { change } = worked.acquire('m1', 8, 8, 0, LIMITS);
    worked.complete(change!, true, 0, LIMITS);
    const ack = worked.acknowledge('m1', [{ firstOffset: 0, lastOffset: 5, acknowledgeTypes: [T.ACCEPT] }], 0, LIMITS);
    worked.complete(ack.change!, true, 0, LIMITS);
    const before = roundTrip(worked);
    expect(before.startOffset).toBe(6);
    // The reset to 2: a fresh state one epoch up, nothing delivered.
    const reset = roundTrip(new SharePartition(before.stateEpoch + 1, 2));
    const key = { groupId: 'g', topic: 't', partition: 2 };
    const replay = new ShareStateReplay();
    for (const snapshot of [before, reset]) replay.apply(key, sharePartitionStateRecord(key, snapshot, 0).value);
    const loaded = replay.list()[0].snapshot;
    expect(loaded).toEqual({ stateEpoch: 1, startOffset: 2, endOffset: 2, ranges: [], deadLetters: [] });
    const { partition } = partitionFromSnapshot(loaded, LIMITS);
    partition.reportEnd(8);
    expect(partition.acquire('m2', 10, 10, 0, LIMITS).leases).toEqual([
      { firstOffset: 2, lastOffset: 7, deliveryCount: 1 },
    ]);
  });
});
