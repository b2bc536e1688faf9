import { ErrorCode, KafkaError } from '@cohort/protocol';
import { ManualClock } from '@cohort/replication';
import { FakePartitionStore } from '@cohort/coordinator/testing';
import type { WriteOutcome } from './coordinator-result';
import { ShardRuntime } from './shard-runtime';

const record = { key: Buffer.from('[2,"g"]'), value: Buffer.from('{}'), timestamp: 0 };

async function settle(): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
}

describe('ShardRuntime', () => {
  let clock: ManualClock;
  let store: FakePartitionStore;
  let failures: number[];
  let writer: ShardRuntime;
  beforeEach(() => {
    clock = new ManualClock();
    store = new FakePartitionStore(clock);
    const epoch = store.elect(3);
    failures = [];
    writer = new ShardRuntime(store, clock, 3, epoch, 1000, {
      onFailure: (code) => failures.push(code),
      onCallbackError: (e) => {
        throw e;
      },
    });
  });

  /** Writes of one record each, by name: what each was answered with on a timeout, and how each settled. */
  function namedWrites(): { answered: string[]; settled: string[]; write: (name: string) => void } {
    const answered: string[] = [];
    const settled: string[] = [];
    const write = (name: string) =>
      writer.write(
        [record],
        (r) => settled.push(`${name}:${r.ok ? r.lastOffset : r.storeError}`),
        (timeout) => answered.push(`${name}:${timeout.storeError}`),
      );
    return { answered, settled, write };
  }

  it('reports a write only once it is committed, with the offsets it got', async () => {
    const results: WriteOutcome[] = [];
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

  it('reports a refused append asynchronously, through the failure hook', async () => {
    const results: WriteOutcome[] = [];
    store.failNextAppend(3, new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS));
    writer.write([record], (r) => results.push(r));
    expect(results).toEqual([]);
    await settle();
    expect(results.map((r) => (r.ok ? 0 : r.storeError))).toEqual([ErrorCode.NOT_ENOUGH_REPLICAS]);
    expect(failures).toEqual([ErrorCode.NOT_ENOUGH_REPLICAS]);
  });

  it('answers a write that times out with REQUEST_TIMED_OUT, and settles it only with the log: a later commit settles both, in log order', async () => {
    const { answered, settled, write } = namedWrites();
    write('first');
    await settle();
    clock.advance(600);
    write('second'); // a later batch, computed from the first one's state
    await settle();
    clock.advance(400); // the first one's time is up; the second's is not
    await settle();
    expect(answered).toEqual([`first:${ErrorCode.REQUEST_TIMED_OUT}`]);
    expect(settled).toEqual([]);
    expect(failures).toEqual([ErrorCode.REQUEST_TIMED_OUT]);
    // Well past their timeouts both writes still wait for the log's verdict, each answered once.
    clock.advance(5000);
    await settle();
    expect(settled).toEqual([]);
    expect(answered).toEqual([`first:${ErrorCode.REQUEST_TIMED_OUT}`, `second:${ErrorCode.REQUEST_TIMED_OUT}`]);
    expect(writer.pendingWrites).toBe(2);
    store.advanceHighWatermark(3);
    await settle();
    expect(settled).toEqual(['first:0', 'second:1']);
    expect(answered).toHaveLength(2);
    expect(writer.pendingWrites).toBe(0);
  });

  it('a timed-out write that the log then loses settles as failed; a replayRecords=false write is settled by its timeout', async () => {
    const settled: WriteOutcome[] = [];
    const classic: WriteOutcome[] = [];
    writer.write(
      [record],
      (r) => settled.push(r),
      () => undefined,
    );
    writer.write([record], (r) => classic.push(r), 'settle');
    await settle();
    clock.advance(1000);
    await settle();
    expect(settled).toEqual([]);
    expect(classic).toMatchObject([{ ok: false, storeError: ErrorCode.REQUEST_TIMED_OUT }]);
    store.failPendingCommits(3, new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR, 'disk gone'));
    await settle();
    expect(settled).toMatchObject([{ ok: false, storeError: ErrorCode.KAFKA_STORAGE_ERROR }]);
  });

  it('a write committed with too few replicas (NOT_ENOUGH_REPLICAS_AFTER_APPEND) is answered with it and settled as committed', async () => {
    const answered: number[] = [];
    const settled: WriteOutcome[] = [];
    writer.write(
      [record],
      (r) => settled.push(r),
      (failed) => answered.push(failed.storeError),
    );
    await settle();
    store.failPendingCommits(3, new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND, 'isr shrank'));
    await settle();
    expect(answered).toEqual([ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND]);
    expect(settled).toEqual([{ ok: true, baseOffset: 0, lastOffset: 0 }]);
  });

  it('closing fails every pending write with NOT_COORDINATOR at once; a later commit of the same records is ignored', async () => {
    const results: WriteOutcome[] = [];
    writer.write([record], (r) => results.push(r));
    await settle();
    writer.close();
    expect(results).toEqual([
      { ok: false, storeError: ErrorCode.NOT_COORDINATOR, message: 'this node no longer leads the partition' },
    ]);
    store.advanceHighWatermark(3);
    await settle();
    expect(results).toHaveLength(1);
    writer.write([record], (r) => results.push(r));
    await settle();
    expect(results[1]).toMatchObject({ ok: false, storeError: ErrorCode.NOT_COORDINATOR });
    expect(writer.pendingWrites).toBe(0);
  });

  it('appends the writes of one drain as one batch, and gives each write its own offsets, in order', async () => {
    const results: WriteOutcome[] = [];
    writer.write([record, record], (r) => results.push(r));
    writer.write([record], (r) => results.push(r));
    await settle();
    expect(writer.appendCount).toBe(1);
    expect(results).toEqual([]);
    store.advanceHighWatermark(3);
    await settle();
    expect(results).toEqual([
      { ok: true, baseOffset: 0, lastOffset: 1 },
      { ok: true, baseOffset: 2, lastOffset: 2 },
    ]);
    writer.write([record], (r) => results.push(r));
    await settle();
    expect(writer.appendCount).toBe(2);
  });

  it("waits once for a batch's commit, however many writes it holds, and settles them together once its last record commits", async () => {
    const waits = jest.spyOn(store, 'awaitCommit');
    const results: WriteOutcome[] = [];
    for (let i = 0; i < 3; i++) writer.write([record], (r) => results.push(r));
    await settle();
    expect(waits).toHaveBeenCalledTimes(1);
    expect(waits.mock.calls[0][2]).toBe(2); // the batch's last offset
    store.advanceHighWatermark(3, 2); // the first two records only: the batch is not committed yet
    await settle();
    expect(results).toEqual([]);
    store.advanceHighWatermark(3);
    await settle();
    expect(results.map((r) => (r.ok ? r.lastOffset : -1))).toEqual([0, 1, 2]);
  });

  it('a batch that times out answers each of its writes with REQUEST_TIMED_OUT once, and a failure fails each of them', async () => {
    const { answered, settled, write } = namedWrites();
    write('a');
    write('b');
    await settle();
    clock.advance(1000);
    await settle();
    expect(answered).toEqual([`a:${ErrorCode.REQUEST_TIMED_OUT}`, `b:${ErrorCode.REQUEST_TIMED_OUT}`]);
    clock.advance(1000); // still waiting for the verdict: not answered again
    await settle();
    expect(answered).toHaveLength(2);
    store.failPendingCommits(3, new KafkaError(ErrorCode.NOT_COORDINATOR, 'gone'));
    await settle();
    expect(settled).toEqual([`a:${ErrorCode.NOT_COORDINATOR}`, `b:${ErrorCode.NOT_COORDINATOR}`]);
    expect(writer.pendingWrites).toBe(0);
  });

  it('appends the writes of separate callbacks of one event-loop turn (requests of different sockets) as one batch', async () => {
    const results: WriteOutcome[] = [];
    await new Promise<void>((done) => {
      setImmediate(() => writer.write([record], (r) => results.push(r)));
      setImmediate(() => {
        writer.write([record], (r) => results.push(r));
        done();
      });
    });
    await settle();
    expect(writer.appendCount).toBe(1);
    store.advanceHighWatermark(3);
    await settle();
    expect(results).toEqual([
      { ok: true, baseOffset: 0, lastOffset: 0 },
      { ok: true, baseOffset: 1, lastOffset: 1 },
    ]);
  });

  it("appends every shard's batch of one turn before any of them wakes a waiter (a fetch parked on all of them sees them all)", async () => {
    const other = new ShardRuntime(store, clock, 4, store.elect(4), 1000, {
      onFailure: () => undefined,
      onCallbackError: (e) => {
        throw e;
      },
    });
    // What a parked follower fetch does: woken by an append, it answers after the current step.
    const seenByWaiter: number[][] = [];
    const append = store.append.bind(store);
    jest.spyOn(store, 'append').mockImplementation((partition, epoch, records) => {
      const result = append(partition, epoch, records);
      queueMicrotask(() => seenByWaiter.push([store.records(3).length, store.records(4).length]));
      return result;
    });
    await new Promise<void>((done) => {
      setImmediate(() => writer.write([record], () => undefined));
      setImmediate(() => {
        other.write([record], () => undefined);
        done();
      });
    });
    await settle();
    expect(seenByWaiter).toEqual([
      [1, 1],
      [1, 1],
    ]);
  });

  it('a failed batch fails every write in it', async () => {
    const results: WriteOutcome[] = [];
    store.failNextAppend(3, new KafkaError(ErrorCode.NOT_LEADER_OR_FOLLOWER));
    writer.write([record], (r) => results.push(r));
    writer.write([record], (r) => results.push(r));
    await settle();
    expect(results.map((r) => (r.ok ? 0 : r.storeError))).toEqual([
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
      ErrorCode.NOT_LEADER_OR_FOLLOWER,
    ]);
    expect(store.records(3)).toEqual([]);
  });

  it('completes a result: appendFuture first, then the response, or the failure mapping', async () => {
    const seen: string[] = [];
    const ok = writer.complete({ records: [record], response: 'ok', appendFuture: (o) => seen.push(`future ${o.ok}`) });
    const none = await writer.complete({ records: [], response: 'nothing to write' });
    expect(none).toBe('nothing to write');
    await settle();
    store.advanceHighWatermark(3);
    expect(await ok).toBe('ok');
    store.failNextAppend(3, new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS));
    const failed = writer.complete({
      records: [record],
      response: 'ok',
      appendFuture: (o) => seen.push(`future ${o.ok}`),
      onFailure: (o) => `failed ${o.storeError}`,
    });
    expect(await failed).toBe(`failed ${ErrorCode.NOT_ENOUGH_REPLICAS}`);
    expect(seen).toEqual(['future true', 'future false']);
  });
});
