import type { LogRecord } from '@cohort/replication';
import { AcknowledgeType as T } from '../share/share-acknowledge-batches';
import { SharePartition, type SharePartitionLimits } from '../share/share-partition';
import { sharePartitionStateRecord } from '../share/share-state-records';
import { partitionFromSnapshot, snapshotOf } from '../share/share-state-snapshot';
import { PartitionReplay } from './partition-replay';

const NOW = 5_000;
const LIMITS: SharePartitionLimits = { deliveryCountLimit: 5, maxRecordLocks: 100, lockDurationMs: 30_000 };
const KEY = { groupId: 'sg', topic: 'jobs', partition: 0 };

/** Every write of `sp` is a whole snapshot under one key per share partition, as the coordinator writes it. */
const recordOf = (sp: SharePartition): LogRecord => sharePartitionStateRecord(KEY, snapshotOf(sp), NOW);

/** Leases `first..last` to `member` (they must be next in line) and lets the lease commit. */
function lease(sp: SharePartition, member: string, first: number, last: number): void {
  const { leases, change } = sp.acquire(member, last - first + 1, 100, NOW, LIMITS);
  expect(leases[0].firstOffset).toBe(first);
  expect(leases[leases.length - 1].lastOffset).toBe(last);
  sp.complete(change!, true, NOW, LIMITS);
}

function acknowledge(sp: SharePartition, member: string, first: number, last: number, type: number): void {
  const ack = sp.acknowledge(member, [{ firstOffset: first, lastOffset: last, acknowledgeTypes: [type] }], NOW, LIMITS);
  expect(ack.errorCode).toBe(0);
  sp.complete(ack.change!, true, NOW, LIMITS);
}

/**
 * The group's first life, as a follower fetched it before it was cut off: offsets 0-9 released twice
 * (delivery count 2, available again), 10-14 rejected and sent back by an operator (a new state epoch).
 */
function firstLifeRecords(): LogRecord[] {
  const sp = new SharePartition(0, 0);
  sp.reportEnd(15);
  const records: LogRecord[] = [];
  for (let round = 0; round < 2; round++) {
    lease(sp, 'old-1', 0, 9);
    records.push(recordOf(sp));
    acknowledge(sp, 'old-1', 0, 9, T.RELEASE);
    records.push(recordOf(sp));
  }
  lease(sp, 'old-1', 0, 14);
  acknowledge(sp, 'old-1', 10, 14, T.REJECT);
  acknowledge(sp, 'old-1', 0, 9, T.RELEASE);
  expect(sp.redeliver(10, 14)).toBe(5);
  records.push(recordOf(sp));
  expect(sp.stateEpoch).toBe(1);
  return records;
}

/**
 * The group was deleted (a tombstone of its share partition) and a group of the same id started over at
 * state epoch 0 from the earliest offset: 1-9 accepted, 0 still leased, 10-11 leased. The leader's
 * cleaner kept only this key's latest value, so the tombstone between the two lives is gone.
 */
function secondLife(): SharePartition {
  const sp = new SharePartition(0, 0);
  sp.reportEnd(15);
  lease(sp, 'new-1', 0, 9);
  acknowledge(sp, 'new-1', 1, 9, T.ACCEPT);
  lease(sp, 'new-1', 10, 11);
  return sp;
}

function load(records: LogRecord[]): SharePartition {
  const replay = new PartitionReplay(() => undefined);
  records.forEach((record, offset) => replay.apply({ ...record, offset, leaderEpoch: 0 }));
  const [loaded] = replay.sharePartitions.list();
  expect(loaded).toMatchObject(KEY);
  const { partition } = partitionFromSnapshot(loaded.snapshot, LIMITS);
  partition.reportEnd(15);
  return partition;
}

describe('loading share partitions from a compacted log', () => {
  it('brings a share partition back at its latest record when the stale records of a deleted group precede it', () => {
    const latest = secondLife();
    // The follower's own old records, then what the leader's cleaner left of the key: its latest value.
    const loaded = load([...firstLifeRecords(), recordOf(latest)]);

    // Exactly what the leader wrote last: the second life's state epoch, SPSO and counts.
    expect(snapshotOf(loaded)).toEqual(snapshotOf(partitionFromSnapshot(snapshotOf(latest), LIMITS).partition));
    expect(loaded.stateEpoch).toBe(0);
    expect(loaded.startOffset).toBe(0);
    // Nothing accepted is leased again; what was held comes back one delivery up, the rest is new.
    expect(loaded.acquire('new-2', 100, 100, NOW, LIMITS).leases).toEqual([
      { firstOffset: 0, lastOffset: 0, deliveryCount: 2 },
      { firstOffset: 10, lastOffset: 11, deliveryCount: 2 },
      { firstOffset: 12, lastOffset: 14, deliveryCount: 1 },
    ]);
  });

  it('keeps the second life at the same state epoch too, never taking the first life’s higher counts over its acknowledgements', () => {
    // The first life without the redelivery: state epoch 0, as the second life's, with 0-9 at count 2.
    const stale = firstLifeRecords().slice(0, 4);
    const latest = secondLife();
    const loaded = load([...stale, recordOf(latest)]);

    expect(loaded.summary(NOW)).toMatchObject({ acknowledged: 9 });
    expect(loaded.acquire('new-2', 100, 100, NOW, LIMITS).leases).toEqual([
      { firstOffset: 0, lastOffset: 0, deliveryCount: 2 },
      { firstOffset: 10, lastOffset: 11, deliveryCount: 2 },
      { firstOffset: 12, lastOffset: 14, deliveryCount: 1 },
    ]);
  });
});
