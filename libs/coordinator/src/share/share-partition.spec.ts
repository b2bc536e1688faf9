import { ErrorCode } from '@cohort/protocol';
import { SharePartition, type SharePartitionLimits } from './share-partition';
import { AcknowledgeType as T } from './share-acknowledge-batches';
import { RecordState } from './share-partition-runs';

// Kafka's SharePartitionTest cases that pin the state machine (one per `it`, named after Kafka's test),
// on offsets only: the time is passed in, and a change's write is completed by hand (`commit`).

const LIMITS: SharePartitionLimits = { deliveryCountLimit: 5, maxRecordLocks: 200, lockDurationMs: 30_000 };

function partition(end = 20, start = 0, limits = LIMITS) {
  const sp = new SharePartition(0, start);
  sp.reportEnd(end);
  let now = 1000;
  const acquire = (member: string, maxRecords = 500, batchSize = 500) => {
    const { leases, change } = sp.acquire(member, maxRecords, batchSize, now, limits);
    if (change) sp.complete(change, true, now, limits);
    return leases.map((l) => [l.firstOffset, l.lastOffset, l.deliveryCount]);
  };
  const ack = (member: string, batches: [number, number, number[]][], commit = true) => {
    const result = sp.acknowledge(
      member,
      batches.map(([firstOffset, lastOffset, acknowledgeTypes]) => ({ firstOffset, lastOffset, acknowledgeTypes })),
      now,
      limits,
    );
    if (result.change && commit) sp.complete(result.change, true, now, limits);
    return result;
  };
  const advance = (ms: number) => {
    now += ms;
    return sp.expire(now, limits);
  };
  const states = () => sp.runs.map((r) => [r.first, r.last, r.state, r.count]);
  return { sp, acquire, ack, advance, states, now: () => now, limits };
}

const { AVAILABLE, ACQUIRED, ACKNOWLEDGED, ARCHIVED } = RecordState;

describe('SharePartition (Kafka SharePartitionTest)', () => {
  it('leases new offsets with count 1 (testAcquireSingleRecord / testAcquireMultipleRecords)', () => {
    const p = partition(5);
    expect(p.acquire('m1')).toEqual([[0, 4, 1]]);
    expect(p.states()).toEqual([[0, 4, ACQUIRED, 1]]);
    expect(p.sp.endOffset).toBe(5);
  });

  it('does not lease an acquired range again (testAcquireSameBatchAgain)', () => {
    const p = partition(10);
    p.acquire('m1', 500, 500);
    expect(p.acquire('m1')).toEqual([]);
    expect(p.acquire('m2')).toEqual([]);
  });

  it('cuts ranges at batchSize and stops at maxRecords (testAcquireWithBatchSizeAndMultipleBatches)', () => {
    const p = partition(30);
    expect(p.acquire('m1', 25, 10)).toEqual([
      [0, 9, 1],
      [10, 19, 1],
      [20, 24, 1],
    ]);
  });

  it('leases at most maxRecordLocks past SPSO (testAcquireWithMaxInFlightRecordsAndTryAcquireNewBatch)', () => {
    const p = partition(1000, 0, { ...LIMITS, maxRecordLocks: 100 });
    expect(p.acquire('m1', 500, 500)).toEqual([[0, 99, 1]]);
    expect(p.acquire('m2')).toEqual([]);
    p.ack('m1', [[0, 9, [T.ACCEPT]]]);
    expect(p.sp.startOffset).toBe(10);
    expect(p.acquire('m2')).toEqual([[100, 109, 1]]);
  });

  it('Accept moves SPSO and empties the window (testAcknowledgeSingleRecordBatch)', () => {
    const p = partition(1);
    p.acquire('m1');
    expect(p.ack('m1', [[0, 0, [T.ACCEPT]]]).errorCode).toBe(0);
    expect(p.sp.startOffset).toBe(1);
    expect(p.sp.runs).toEqual([]);
  });

  it('per-offset types with gaps split the range; Release makes offsets available (testAcknowledgeMultipleRecordBatchWithGapOffsets)', () => {
    const p = partition(10);
    p.acquire('m1');
    const types = [T.ACCEPT, T.GAP, T.RELEASE, T.REJECT, T.ACCEPT, T.RELEASE, T.RELEASE, T.ACCEPT, T.GAP, T.ACCEPT];
    expect(p.ack('m1', [[0, 9, types]]).errorCode).toBe(0);
    expect(p.sp.startOffset).toBe(2);
    expect(p.states()).toEqual([
      [2, 2, AVAILABLE, 1],
      [3, 3, ARCHIVED, 1],
      [4, 4, ACKNOWLEDGED, 1],
      [5, 6, AVAILABLE, 1],
      [7, 7, ACKNOWLEDGED, 1],
      [8, 8, ARCHIVED, 1],
      [9, 9, ACKNOWLEDGED, 1],
    ]);
  });

  it('refuses an acknowledgement by another member (testAcknowledgeWithAnotherMember)', () => {
    const p = partition(5);
    p.acquire('m1');
    const result = p.ack('m2', [[0, 4, [T.ACCEPT]]]);
    expect(result.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(p.states()).toEqual([[0, 4, ACQUIRED, 1]]);
  });

  it('refuses to acknowledge offsets never leased (testAcknowledgeWhenOffsetNotAcquired)', () => {
    const p = partition(10);
    p.acquire('m1', 5);
    expect(p.ack('m1', [[3, 7, [T.ACCEPT]]]).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    p.ack('m1', [[0, 1, [T.RELEASE]]]);
    expect(p.ack('m1', [[0, 0, [T.ACCEPT]]]).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('one bad batch changes nothing of the others (testAcknowledgeRollbackWithSubsetError)', () => {
    const p = partition(20);
    p.acquire('m1', 10);
    const before = p.states();
    const result = p.ack('m1', [
      [0, 4, [T.ACCEPT]],
      [5, 12, [T.ACCEPT]],
    ]);
    expect(result.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(p.states()).toEqual(before);
    expect(p.sp.startOffset).toBe(0);
  });

  it('refuses acknowledgements after the lock expired (testAcknowledgeAfterAcquisitionLockTimeout)', () => {
    const p = partition(5);
    p.acquire('m1');
    expect(p.advance(30_000)).toBe(true);
    expect(p.states()).toEqual([[0, 4, AVAILABLE, 1]]);
    expect(p.ack('m1', [[0, 4, [T.ACCEPT]]]).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(p.ack('m1', [[0, 4, [T.REJECT]]]).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(p.states()).toEqual([[0, 4, AVAILABLE, 1]]);
  });

  it('a second expiry at limit 2 archives (testAcquisitionLockTimeoutCauseMaxDeliveryCountExceed)', () => {
    const p = partition(5, 0, { ...LIMITS, deliveryCountLimit: 2 });
    p.acquire('m1');
    p.advance(30_000);
    // The second delivery is the last: leased one offset at a time.
    expect(p.acquire('m2')).toEqual([[0, 0, 2]]);
    p.advance(30_000);
    expect(p.sp.deadLetterList()).toEqual([{ first: 0, last: 0, reason: 'delivery-limit', count: 2 }]);
    expect(p.sp.startOffset).toBe(1);
  });

  it('a failed acknowledgement write goes back to ACQUIRED (testAcknowledgeBatchWithWriteShareGroupStateFailure)', () => {
    const p = partition(5);
    p.acquire('m1');
    const { change } = p.ack('m1', [[0, 4, [T.ACCEPT]]], false);
    // While it is written, the offsets are neither acknowledgeable again nor expirable.
    expect(p.ack('m1', [[0, 4, [T.ACCEPT]]]).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    p.sp.complete(change!, false, p.now(), LIMITS);
    expect(p.states()).toEqual([[0, 4, ACQUIRED, 1]]);
    expect(p.ack('m1', [[0, 4, [T.ACCEPT]]]).errorCode).toBe(0);
    expect(p.sp.startOffset).toBe(5);
  });

  it('a failed write after the lock expired ends the lease instead (testAcquisitionLockTimeoutWithConcurrentAcknowledgement)', () => {
    const p = partition(5);
    p.acquire('m1');
    const { change } = p.ack('m1', [[0, 4, [T.ACCEPT]]], false);
    p.advance(30_000);
    expect(p.states()).toEqual([[0, 4, ACKNOWLEDGED, 1]]);
    p.sp.complete(change!, false, p.now(), LIMITS);
    expect(p.states()).toEqual([[0, 4, AVAILABLE, 1]]);
  });

  it('releasing a member touches only its leases and keeps the count (testReleaseAcquiredRecordsWithAnotherMember / …DoNotDecreaseDeliveryCount)', () => {
    const p = partition(10);
    p.acquire('m1', 5);
    p.acquire('m2', 5);
    expect(p.sp.releaseMember('m1', p.now(), LIMITS)).toBe(true);
    expect(p.states()).toEqual([
      [0, 4, AVAILABLE, 1],
      [5, 9, ACQUIRED, 1],
    ]);
    expect(p.acquire('m3')).toEqual([[0, 4, 2]]);
  });

  it('Release at the limit archives and SPSO jumps (testMaxDeliveryCountLimitExceededForRecordBatch)', () => {
    const p = partition(10, 0, { ...LIMITS, deliveryCountLimit: 2 });
    p.acquire('m1');
    p.ack('m1', [[0, 9, [T.RELEASE]]]);
    expect(p.acquire('m1')).toEqual([[0, 0, 2]]);
    p.ack('m1', [[0, 0, [T.RELEASE]]]);
    expect(p.sp.startOffset).toBe(1);
    expect(p.sp.deadLetterList()).toEqual([{ first: 0, last: 0, reason: 'delivery-limit', count: 2 }]);
  });

  it('terminal offsets in the middle do not move SPSO (testMaybeUpdateCachedStateWhenAcknowledgementsInBetween)', () => {
    const p = partition(10);
    p.acquire('m1');
    p.ack('m1', [[3, 6, [T.ACCEPT]]]);
    expect(p.sp.startOffset).toBe(0);
    p.ack('m1', [[0, 2, [T.ACCEPT]]]);
    expect(p.sp.startOffset).toBe(7);
  });

  it('SPSO waits for a change being written (testCacheUpdateWhenBatchHasOngoingTransition)', () => {
    const p = partition(5);
    p.acquire('m1');
    const { change } = p.ack('m1', [[0, 4, [T.ACCEPT]]], false);
    expect(p.sp.startOffset).toBe(0);
    p.sp.complete(change!, true, p.now(), LIMITS);
    expect(p.sp.startOffset).toBe(5);
  });

  it('another member re-leases released sub-ranges with count 2; gaps stay archived (testReacquireSubsetWithAnotherMember)', () => {
    const p = partition(10);
    p.acquire('m1');
    p.ack('m1', [
      [0, 9, [T.RELEASE, T.GAP, T.RELEASE, T.RELEASE, T.ACCEPT, T.GAP, T.GAP, T.RELEASE, T.ACCEPT, T.RELEASE]],
    ]);
    expect(p.acquire('m2', 500, 500)).toEqual([
      [0, 0, 2],
      [2, 3, 2],
      [7, 7, 2],
      [9, 9, 2],
    ]);
  });

  it('RENEW swaps the lock; renewing after expiry fails (testRenewAcknowledgeOnExpiredBatch)', () => {
    const p = partition(5);
    p.acquire('m1');
    p.advance(20_000);
    expect(p.ack('m1', [[0, 1, [T.RENEW]]]).errorCode).toBe(0);
    p.advance(20_000);
    expect(p.states()).toEqual([
      [0, 1, ACQUIRED, 1],
      [2, 4, AVAILABLE, 1],
    ]);
    p.advance(10_000);
    expect(p.ack('m1', [[0, 1, [T.RENEW]]]).errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it('acknowledgements below SPSO succeed as no-ops', () => {
    const p = partition(10);
    p.acquire('m1', 5);
    p.ack('m1', [[0, 4, [T.ACCEPT]]]);
    p.acquire('m1', 5);
    expect(p.ack('m1', [[2, 6, [T.ACCEPT]]]).errorCode).toBe(0);
    expect(p.sp.startOffset).toBe(7);
  });

  it('redelivers dead letters below SPSO under a new state epoch, counted from zero', () => {
    const p = partition(10);
    p.acquire('m1');
    p.ack('m1', [
      [0, 9, [T.ACCEPT, T.REJECT, T.REJECT, T.ACCEPT, T.ACCEPT, T.REJECT, T.ACCEPT, T.ACCEPT, T.ACCEPT, T.ACCEPT]],
    ]);
    expect(p.sp.startOffset).toBe(10);
    expect(p.sp.deadLetterList()).toEqual([
      { first: 1, last: 2, reason: 'rejected', count: 1 },
      { first: 5, last: 5, reason: 'rejected', count: 1 },
    ]);
    expect(p.sp.redeliver(2, 5)).toBe(2);
    expect(p.sp.stateEpoch).toBe(1);
    expect(p.sp.startOffset).toBe(2);
    expect(p.sp.deadLetterList()).toEqual([{ first: 1, last: 1, reason: 'rejected', count: 1 }]);
    expect(p.acquire('m2')).toEqual([
      [2, 2, 1],
      [5, 5, 1],
    ]);
  });

  it('after a redelivery moved SPSO back, leases no more than maxRecordLocks in flight, none past the window', () => {
    const p = partition(100, 0, { ...LIMITS, maxRecordLocks: 4 });
    expect(p.acquire('m1')).toEqual([[0, 3, 1]]);
    p.ack('m1', [[0, 3, [T.REJECT, T.ACCEPT, T.ACCEPT, T.ACCEPT]]]);
    expect(p.sp.startOffset).toBe(4);
    expect(p.acquire('m1')).toEqual([[4, 7, 1]]);
    // The dead letter at 0 comes back: SPSO moves back to it, behind the four offsets m1 still holds.
    expect(p.sp.redeliver(0, 0)).toBe(1);
    expect(p.sp.startOffset).toBe(0);
    expect(p.sp.hasLeasable(p.limits)).toBe(false);
    expect(p.acquire('m2')).toEqual([]);
    // m1 lets 4-7 go: the window is 0-3 now, so only the redelivered 0 is leased, not 4-7 beyond it.
    p.ack('m1', [[4, 7, [T.RELEASE]]]);
    expect(p.acquire('m2')).toEqual([[0, 0, 1]]);
    expect(p.acquire('m2')).toEqual([]);
    // Once 0 is done SPSO passes 1-3 (acknowledged) and the window reaches 4-7 again.
    p.ack('m2', [[0, 0, [T.ACCEPT]]]);
    expect(p.sp.startOffset).toBe(4);
    expect(p.acquire('m2')).toEqual([[4, 7, 2]]);
  });

  it('the log start passing archives what was available below it and moves SPSO (testLsoMovementToEndOffset)', () => {
    const p = partition(10);
    p.acquire('m1', 4);
    p.ack('m1', [[2, 3, [T.RELEASE]]]);
    expect(p.sp.reportLogStart(6)).toBe(true);
    // 0-1 are still held; 2-3 were available: archived; 4-5, never leased, are skipped.
    expect(p.states()).toEqual([
      [0, 1, ACQUIRED, 1],
      [2, 3, ARCHIVED, 1],
      [4, 5, ARCHIVED, 0],
    ]);
    expect(p.sp.deadLetterList()).toEqual([]);
    p.ack('m1', [[0, 1, [T.ACCEPT]]]);
    expect(p.sp.startOffset).toBe(6);
    expect(p.acquire('m1')).toEqual([[6, 9, 1]]);
  });
});
