import * as path from 'node:path';
import { KafkaError } from '@cohort/protocol';
import type { LogRecord } from '../api/log-record';
import type {
  AppendResult,
  LeadershipListener,
  PartitionOffsets,
  PartitionStore,
  ReadResult,
  RecordVisitor,
} from '../api/partition-store.port';
import { LogJournal, type JournalRecoveryReport } from '../log/file/log-journal';
import type { RecoveryReport } from '../log/file/log-recovery';
import { LogCleaner, type LogCleanerOptions } from '../log/log-cleaner';
import { readRecords, scanRecords } from '../log/read-records';
import { FileCheckpointStorage } from '../storage/file-checkpoint-storage';
import type { Clock } from '../time/clock';
import { nextEmbeddedEpoch } from './embedded-leader-epoch';
import { LocalPartition } from './local-partition';
import { StorageFaults, type StorageFaultEvents, type StorageFaultInfo } from './storage-faults';
import { openPartitionLogs, type OpenedPartitionLogs } from './open-partition-logs';
import type { LogDamage } from '../log/file/log-recovery';

export type LogFlushPolicy = 'always' | 'replicated';

export interface LocalPartitionStoreOptions extends StorageFaultEvents {
  /** DATA_DIR: partition `p` lives in `<dataDir>/__consumer_offsets-<p>/`. */
  dataDir: string;
  clock: Clock;
  /** OFFSETS_TOPIC_NUM_PARTITIONS (default 50). */
  numPartitions?: number;
  /** LOG_FLUSH_POLICY (default `always`, the embedded default). */
  flushPolicy?: LogFlushPolicy;
  /** Segment size; compaction only reaches closed segments, so this bounds the uncompacted tail. */
  segmentBytes?: number;
  /** Periodic compaction (on by default); `false` turns the timer off (`compactAll` still works). */
  cleaner?: Omit<LogCleanerOptions, 'clock'> | false;
  /** Every partition's recovery report, clean or not, as its log opens. */
  onRecovery?: (partition: number, report: RecoveryReport) => void;
  /** Under `always`, after each fdatasync of the log journal: its duration and the bytes it made durable (metrics). */
  onLogFlush?: (durationMs: number, bytes: number) => void;
  /**
   * LOG_RECOVERY_TRUNCATE_ON_CORRUPTION: a partition whose log is damaged where records known to be
   * written are (a corrupt segment, not a torn tail) is cut there and served, instead of left unserved.
   */
  truncateOnCorruption?: boolean;
  /** A partition left unserved because opening it would have cut records known to be written (see truncateOnCorruption). */
  onDamagedPartition?: (partition: number, damage: LogDamage) => void;
  /** What replaying the log journal did at start (nothing to replay after a clean stop, or without `always`). */
  onJournalRecovery?: (report: JournalRecoveryReport) => void;
  /** Failures nobody awaits: a log that failed, a listener that threw, a compaction error. */
  onError?: (error: unknown, context: string) => void;
}

export const OFFSETS_TOPIC_NAME = '__consumer_offsets';
export const DEFAULT_LOCAL_SEGMENT_BYTES = 1024 * 1024;
/** Under `always`, the journal every partition's appends are made durable through lives in `<dataDir>/log-journal/`. */
export const LOG_JOURNAL_DIR = 'log-journal';

/**
 * The embedded single-node PartitionStore (README.md's configuration table: RF 1, file log under DATA_DIR). It leads every
 * partition in one leader epoch, bumped and persisted on every start. The HW is what survives a
 * crash under the flush policy: with `always` the flushed offset (every append asks for a
 * group-committed fdatasync of the log journal that all partitions share), with `replicated` the
 * offset written to the OS — like Kafka with one replica, which counts page-cache writes.
 */
export class LocalPartitionStore implements PartitionStore {
  /** The partitions served (every one but the damaged), and the same by partition number. */
  private partitions: LocalPartition[] = [];
  private readonly byNumber = new Map<number, LocalPartition>();
  private damaged = new Map<number, LogDamage>();
  private readonly listeners = new Set<LeadershipListener>();
  private readonly numPartitions: number;
  private readonly flushPolicy: LogFlushPolicy;
  private cleaner: LogCleaner | undefined;
  private journal: LogJournal | undefined;
  private starting: Promise<void> | undefined;
  private closing: Promise<void> | undefined;
  private _leaderEpoch = -1;
  private readonly faults: StorageFaults;
  /** Bumped by each storage fault: a durability callback from before it no longer moves a HW. */
  private generation = 0;

  static async open(options: LocalPartitionStoreOptions): Promise<LocalPartitionStore> {
    const store = new LocalPartitionStore(options);
    await store.start();
    return store;
  }

  constructor(private readonly options: LocalPartitionStoreOptions) {
    this.numPartitions = options.numPartitions ?? 50;
    if (!Number.isInteger(this.numPartitions) || this.numPartitions < 1) {
      throw new Error(`numPartitions must be a positive integer, got ${options.numPartitions}`);
    }
    this.flushPolicy = options.flushPolicy ?? 'always';
    if (this.flushPolicy !== 'always' && this.flushPolicy !== 'replicated') {
      throw new Error(`flushPolicy must be 'always' or 'replicated', got ${String(options.flushPolicy)}`);
    }
    this.faults = new StorageFaults(options.dataDir, options.clock, () => this.heal(), options);
  }

  /** Partitions not served because their log is damaged where records known to be written are. */
  get damagedPartitions(): ReadonlyMap<number, LogDamage> {
    return this.damaged;
  }

  /** The storage fault writes are refused for (KAFKA_STORAGE_ERROR), while there is one; reads go on. */
  get storageFault(): StorageFaultInfo | undefined {
    return this.faults.info;
  }

  /** The epoch this node leads every partition in (-1 before start). */
  get leaderEpoch(): number {
    return this._leaderEpoch;
  }

  /** Opens (and recovers) every partition's log, bumps the epoch, then becomes leader of all. */
  start(): Promise<void> {
    this.starting ??= this.doStart();
    return this.starting;
  }

  append(partition: number, leaderEpoch: number, records: LogRecord[]): AppendResult {
    const p = this.leaderOf(partition, leaderEpoch);
    const refused = this.faults.current;
    if (refused) throw refused;
    const batch = p.log.appendAsLeader(records, leaderEpoch);
    const lastOffset = batch.baseOffset + batch.records.length - 1;
    const durable = this.flushPolicy === 'always' ? p.log.flush() : p.log.awaitWritten();
    const generation = this.generation;
    durable.then(
      () => {
        // Made durable after a fault failed it: the heal drops it rather than commit what was refused.
        if (generation === this.generation) p.advanceTo(lastOffset + 1);
      },
      (error: unknown) => this.onStorageFault(toStorageError(error), error),
    );
    return { baseOffset: batch.baseOffset, lastOffset };
  }

  awaitCommit(partition: number, leaderEpoch: number, lastOffset: number, timeoutMs: number): Promise<void> {
    let p: LocalPartition;
    try {
      p = this.leaderOf(partition, leaderEpoch);
      if (!Number.isSafeInteger(lastOffset) || lastOffset < 0 || lastOffset >= p.log.logEndOffset) {
        throw KafkaError.of(
          'INVALID_REQUEST',
          `offset ${lastOffset} was never appended to partition ${partition} (log end ${p.log.logEndOffset})`,
        );
      }
      if (!(timeoutMs >= 0)) throw KafkaError.of('INVALID_REQUEST', `timeoutMs must be >= 0, got ${timeoutMs}`);
    } catch (error) {
      return Promise.reject(error);
    }
    if (lastOffset < p.highWatermark) return Promise.resolve();
    return p.waiters.wait(leaderEpoch, lastOffset + 1, timeoutMs);
  }

  async read(partition: number, fromOffset: number, upToOffset: number, maxRecords: number): Promise<ReadResult> {
    const p = this.hosted(partition);
    if (this.closing) throw KafkaError.of('NOT_COORDINATOR', 'the store is closing');
    return readRecords(p.log, fromOffset, upToOffset, maxRecords);
  }

  async scan(
    partition: number,
    fromOffset: number,
    upToOffset: number,
    maxRecords: number,
    visit: RecordVisitor,
  ): Promise<number> {
    const p = this.hosted(partition);
    if (this.closing) throw KafkaError.of('NOT_COORDINATOR', 'the store is closing');
    return scanRecords(p.log, fromOffset, upToOffset, maxRecords, visit);
  }

  offsets(partition: number): PartitionOffsets {
    const p = this.byNumber.get(partition);
    if (!p) return { logStartOffset: 0, logEndOffset: 0, highWatermark: 0 };
    return { logStartOffset: p.log.logStartOffset, logEndOffset: p.log.logEndOffset, highWatermark: p.highWatermark };
  }

  subscribe(listener: LeadershipListener): () => void {
    this.listeners.add(listener);
    for (const p of this.partitions) if (p.leading) this.notify(listener, 'onBecomeLeader', p);
    return () => void this.listeners.delete(listener);
  }

  /** Resigns every partition (pending commits fail NOT_COORDINATOR), then flushes and closes the logs. */
  close(): Promise<void> {
    this.closing ??= this.doClose();
    return this.closing;
  }

  /** Compacts every partition below its HW now, whatever its dirty ratio (operators, tests). */
  compactAll(): Promise<number> {
    return this.cleaner?.runOnce(true) ?? Promise.resolve(0);
  }

  private async doStart(): Promise<void> {
    const { dataDir, clock } = this.options;
    // Under `always`, one fsync of one journal covers the appends of every partition at that moment (see
    // LogJournal). It is opened and replayed under any policy: a previous run may have used `always`.
    const onFault = (fault: KafkaError, cause: unknown) => this.onStorageFault(fault, cause);
    const journal = await LogJournal.open(path.join(dataDir, LOG_JOURNAL_DIR), {
      onSync: this.options.onLogFlush,
      onFault,
    });
    this.journal = journal;
    let opened: OpenedPartitionLogs;
    try {
      opened = await openPartitionLogs({
        dataDir,
        numPartitions: this.numPartitions,
        segmentBytes: this.options.segmentBytes ?? DEFAULT_LOCAL_SEGMENT_BYTES,
        topic: OFFSETS_TOPIC_NAME,
        journal,
        truncateOnCorruption: this.options.truncateOnCorruption === true,
        onFault,
      });
    } catch (error) {
      await journal.close();
      throw error;
    }
    const logs = [...opened.logs.values()];
    let journalRecovery: JournalRecoveryReport;
    try {
      journalRecovery = await journal.recover({ skip: new Set(opened.damaged.keys()), cut: opened.cut });
      if (this.flushPolicy !== 'always') {
        await Promise.all(logs.map((l) => l.leaveJournal()));
        await journal.close();
        this.journal = undefined;
      }
    } catch (error) {
      await Promise.all(logs.map((l) => l.abort()));
      await journal.close();
      throw error;
    }
    for (const [p, log] of opened.logs) this.options.onRecovery?.(p, log.recovery);
    this.damaged = opened.damaged;
    for (const [p, damage] of opened.damaged) this.options.onDamagedPartition?.(p, damage);
    this.options.onJournalRecovery?.(journalRecovery);
    const latestInLogs = Math.max(-1, ...logs.map((l) => l.latestEpoch));
    this._leaderEpoch = nextEmbeddedEpoch(new FileCheckpointStorage(dataDir), latestInLogs);
    this.partitions = [...opened.logs].map(([p, log]) => new LocalPartition(p, log, this._leaderEpoch, clock));
    for (const p of this.partitions) this.byNumber.set(p.partition, p);
    const cleanerOptions = this.options.cleaner || {};
    this.cleaner = new LogCleaner({
      ...cleanerOptions,
      clock,
      onError: (name, error) => {
        cleanerOptions.onError?.(name, error);
        // While the storage is failed every log fails to compact: the fault was reported once already.
        if (!this.faults.current) this.options.onError?.(error, `compacting ${name}`);
      },
    });
    for (const p of this.partitions)
      this.cleaner.register(`${OFFSETS_TOPIC_NAME}-${p.partition}`, p.log, () => p.highWatermark);
    if (this.options.cleaner !== false) this.cleaner.start();
    for (const p of this.partitions) for (const l of [...this.listeners]) this.notify(l, 'onBecomeLeader', p);
  }

  private async doClose(): Promise<void> {
    await this.starting?.catch(() => undefined);
    this.faults.close();
    await this.cleaner?.stop();
    for (const p of this.partitions) this.resign(p, 'NOT_COORDINATOR', 'the store is closing');
    await Promise.all(
      this.partitions.map((p) =>
        p.log.close().catch((e: unknown) => this.options.onError?.(e, `closing partition ${p.partition}`)),
      ),
    );
    await this.journal?.close().catch((e: unknown) => this.options.onError?.(e, 'closing the log journal'));
  }

  /**
   * A write or fsync failed (no space, EIO). The storage is shared by every partition (and under
   * `always` so is the journal), so the whole store stops taking writes: pending commits fail
   * KAFKA_STORAGE_ERROR, appends are refused with it, reads go on, and `faults` tries to heal.
   */
  private onStorageFault(fault: KafkaError, cause: unknown): void {
    if (this.closing || !this.faults.enter(fault, cause)) return;
    this.generation++;
    const refused = this.faults.current!;
    for (const p of this.partitions) p.waiters.failAll('KAFKA_STORAGE_ERROR', refused.message);
  }

  /**
   * One attempt to take writes again: the journal and every log write again what failed (so their files
   * are whole), then every log is cut back to its HW — what the fault failed was answered
   * KAFKA_STORAGE_ERROR and must not be committed later — and that is made durable too.
   */
  private async heal(): Promise<void> {
    await this.journal?.heal();
    for (const p of this.partitions) await p.log.heal();
    for (const p of this.partitions) p.log.truncateTo(p.highWatermark);
    await Promise.all(
      this.partitions.map((p) => (this.flushPolicy === 'always' ? p.log.flush() : p.log.awaitWritten())),
    );
  }

  private resign(p: LocalPartition, error: 'NOT_COORDINATOR', reason: string): void {
    if (!p.leading) return;
    p.leading = false;
    p.waiters.failAll(error, reason);
    for (const l of [...this.listeners]) this.notify(l, 'onResign', p);
  }

  private notify(listener: LeadershipListener, event: 'onBecomeLeader' | 'onResign', p: LocalPartition): void {
    try {
      listener[event](p.partition, p.leaderEpoch);
    } catch (error) {
      this.options.onError?.(error, `${event}(${p.partition}, ${p.leaderEpoch}) listener threw`);
    }
  }

  private hosted(partition: number): LocalPartition {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.numPartitions) {
      throw KafkaError.of('INVALID_REQUEST', `partition ${partition} is not in [0, ${this.numPartitions})`);
    }
    const damage = this.damaged.get(partition);
    if (damage)
      throw KafkaError.of(
        'KAFKA_STORAGE_ERROR',
        `partition ${partition} is not served: its log is damaged where offsets ${damage.from}..${damage.to - 1} were written`,
      );
    const p = this.byNumber.get(partition);
    if (!p) throw KafkaError.of('NOT_COORDINATOR', `partition ${partition} is not open yet`);
    return p;
  }

  private leaderOf(partition: number, leaderEpoch: number): LocalPartition {
    const p = this.hosted(partition);
    if (!p.leading || this.closing)
      throw KafkaError.of('NOT_COORDINATOR', `partition ${partition} is no longer led by this node`);
    if (p.leaderEpoch !== leaderEpoch) {
      throw KafkaError.of(
        'NOT_COORDINATOR',
        `partition ${partition} is led in epoch ${p.leaderEpoch}, not ${leaderEpoch}`,
      );
    }
    return p;
  }
}

function toStorageError(error: unknown): KafkaError {
  return error instanceof KafkaError ? error : KafkaError.of('KAFKA_STORAGE_ERROR', String(error));
}
