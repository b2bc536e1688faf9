import { ErrorCode, KafkaError } from '@cohort/protocol';
import type {
  AppendResult,
  Clock,
  LeadershipListener,
  LogRecord,
  PartitionOffsets,
  PartitionStore,
  ReadResult,
  StoredRecord,
  TimerHandle,
} from '@cohort/replication';

interface Waiter {
  lastOffset: number;
  epoch: number;
  resolve(): void;
  reject(error: KafkaError): void;
  timer: TimerHandle;
}

interface FakePartition {
  records: StoredRecord[];
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
  /** The epoch this node leads the partition in, or null when it does not lead it. */
  leaderEpoch: number | null;
  lastEpoch: number;
  waiters: Waiter[];
  failNextAppend: KafkaError | null;
}

/**
 * An in-memory PartitionStore for coordinator tests: nothing is committed until the test says so
 * (`advanceHighWatermark`, or `autoCommit`), appends and commits can be made to fail, and leadership is
 * moved by hand (`elect`, `resign`). Records stay across elections, so a new coordinator (or a new
 * epoch) replays what the previous one wrote, like a node restart.
 */
export class FakePartitionStore implements PartitionStore {
  /** When true, every append is committed at once (the HW follows the log end). */
  autoCommit: boolean;
  private readonly partitions = new Map<number, FakePartition>();
  private readonly listeners = new Set<LeadershipListener>();

  constructor(
    private readonly clock: Clock,
    options: { autoCommit?: boolean } = {},
  ) {
    this.autoCommit = options.autoCommit ?? false;
  }

  append(partition: number, leaderEpoch: number, records: LogRecord[]): AppendResult {
    const p = this.partition(partition);
    if (p.leaderEpoch !== leaderEpoch)
      throw KafkaError.of('NOT_COORDINATOR', `not the leader of ${partition} in epoch ${leaderEpoch}`);
    if (p.failNextAppend) {
      const error = p.failNextAppend;
      p.failNextAppend = null;
      throw error;
    }
    const baseOffset = p.logEndOffset;
    for (const record of records) {
      p.records.push({ ...record, offset: p.logEndOffset, leaderEpoch });
      p.logEndOffset++;
    }
    if (this.autoCommit) this.advanceHighWatermark(partition);
    return { baseOffset, lastOffset: p.logEndOffset - 1 };
  }

  awaitCommit(partition: number, leaderEpoch: number, lastOffset: number, timeoutMs: number): Promise<void> {
    const p = this.partition(partition);
    if (p.leaderEpoch !== leaderEpoch)
      return Promise.reject(KafkaError.of('NOT_COORDINATOR', `not the leader of ${partition} in epoch ${leaderEpoch}`));
    if (p.highWatermark > lastOffset) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        lastOffset,
        epoch: leaderEpoch,
        resolve,
        reject,
        timer: this.clock.schedule(timeoutMs, () => {
          p.waiters = p.waiters.filter((w) => w !== waiter);
          reject(KafkaError.of('REQUEST_TIMED_OUT', `offset ${lastOffset} not committed within ${timeoutMs} ms`));
        }),
      };
      p.waiters.push(waiter);
    });
  }

  async read(partition: number, fromOffset: number, upToOffset: number, maxRecords: number): Promise<ReadResult> {
    const p = this.partition(partition);
    const end = Math.min(upToOffset, p.logEndOffset);
    const records = p.records.filter((r) => r.offset >= fromOffset && r.offset < end).slice(0, maxRecords);
    const nextOffset =
      records.length === maxRecords ? records[records.length - 1].offset + 1 : Math.max(end, fromOffset);
    return { records: records.map((r) => ({ ...r })), nextOffset };
  }

  offsets(partition: number): PartitionOffsets {
    const p = this.partition(partition);
    return { logStartOffset: p.logStartOffset, logEndOffset: p.logEndOffset, highWatermark: p.highWatermark };
  }

  subscribe(listener: LeadershipListener): () => void {
    this.listeners.add(listener);
    for (const [partition, p] of this.partitions)
      if (p.leaderEpoch !== null) listener.onBecomeLeader(partition, p.leaderEpoch);
    return () => void this.listeners.delete(listener);
  }

  // ---- test controls ----------------------------------------------------------------------------

  /** This node becomes leader of `partition` in a new epoch (default: the previous one + 1). */
  elect(partition: number, epoch?: number): number {
    const p = this.partition(partition);
    if (p.leaderEpoch !== null) this.resign(partition);
    p.leaderEpoch = epoch ?? p.lastEpoch + 1;
    p.lastEpoch = p.leaderEpoch;
    for (const listener of [...this.listeners]) listener.onBecomeLeader(partition, p.leaderEpoch);
    return p.leaderEpoch;
  }

  electAll(numPartitions: number): void {
    for (let partition = 0; partition < numPartitions; partition++) this.elect(partition);
  }

  /** This node stops leading `partition`: pending commits fail with NOT_COORDINATOR. */
  resign(partition: number): void {
    const p = this.partition(partition);
    const epoch = p.leaderEpoch;
    if (epoch === null) return;
    p.leaderEpoch = null;
    this.rejectWaiters(p, KafkaError.of('NOT_COORDINATOR', `resigned leadership of ${partition}`));
    for (const listener of [...this.listeners]) listener.onResign(partition, epoch);
  }

  /** Moves the high watermark to `toOffset` (default: the log end), committing what lies below it. */
  advanceHighWatermark(partition: number, toOffset?: number): void {
    const p = this.partition(partition);
    p.highWatermark = Math.max(p.highWatermark, Math.min(toOffset ?? p.logEndOffset, p.logEndOffset));
    const due = p.waiters.filter((w) => w.lastOffset < p.highWatermark).sort((a, b) => a.lastOffset - b.lastOffset);
    p.waiters = p.waiters.filter((w) => w.lastOffset >= p.highWatermark);
    for (const waiter of due) {
      waiter.timer.cancel();
      waiter.resolve();
    }
  }

  /** Commits everything appended so far, on every partition. */
  commitAll(): void {
    for (const partition of this.partitions.keys()) this.advanceHighWatermark(partition);
  }

  /** The next append to `partition` throws `error` (e.g. NOT_ENOUGH_REPLICAS). */
  failNextAppend(partition: number, error: KafkaError): void {
    this.partition(partition).failNextAppend = error;
  }

  /** Every pending awaitCommit of `partition` rejects with `error`. */
  failPendingCommits(partition: number, error: KafkaError): void {
    this.rejectWaiters(this.partition(partition), error);
  }

  /** Drops every record at or above `offset` (an uncommitted tail lost in a failover). */
  truncate(partition: number, offset: number): void {
    const p = this.partition(partition);
    p.records = p.records.filter((r) => r.offset < offset);
    p.logEndOffset = Math.min(p.logEndOffset, offset);
    p.highWatermark = Math.min(p.highWatermark, offset);
  }

  records(partition: number): StoredRecord[] {
    return this.partition(partition).records.map((r) => ({ ...r }));
  }

  pendingCommits(partition: number): number {
    return this.partition(partition).waiters.length;
  }

  leaderEpoch(partition: number): number | null {
    return this.partition(partition).leaderEpoch;
  }

  private rejectWaiters(p: FakePartition, error: KafkaError): void {
    const waiters = p.waiters;
    p.waiters = [];
    for (const waiter of waiters) {
      waiter.timer.cancel();
      waiter.reject(error);
    }
  }

  private partition(partition: number): FakePartition {
    let p = this.partitions.get(partition);
    if (!p) {
      p = {
        records: [],
        logStartOffset: 0,
        logEndOffset: 0,
        highWatermark: 0,
        leaderEpoch: null,
        lastEpoch: -1,
        waiters: [],
        failNextAppend: null,
      };
      this.partitions.set(partition, p);
    }
    return p;
  }
}

export const NOT_ENOUGH_REPLICAS = (): KafkaError =>
  new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS, 'ISR below MIN_INSYNC_REPLICAS');
