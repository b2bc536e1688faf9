import type { Clock, TimerHandle } from '../time/clock';
import type { CleanableLog } from './cleanable-log';
import type { CompactionStats } from './partition-log';

export interface LogCleanerOptions {
  clock: Clock;
  /** Pause between two passes over the logs (Kafka's log.cleaner.backoff.ms). */
  checkIntervalMs?: number;
  /** A log is compacted once this share of its cleanable bytes is new since the last cleaning (min.cleanable.dirty.ratio). */
  minCleanableDirtyRatio?: number;
  /** delete.retention.ms: how long a tombstone outlives its timestamp. */
  deleteRetentionMs?: number;
  onCleaned?: (name: string, stats: CompactionStats) => void;
  onError?: (name: string, error: unknown) => void;
}

interface Registration {
  name: string;
  log: CleanableLog;
  cleanableUpTo: () => number;
}

/**
 * Keeps compacted logs bounded (reference/kafka-replication.md §6): every `checkIntervalMs` of the
 * injected clock it visits each registered log in turn (one compaction at a time, like Kafka's single
 * cleaner thread) and compacts it below `cleanableUpTo()` (the HW) when its dirty ratio is high
 * enough. Compaction covers flushed data only, so a log that lags its HW on disk is flushed first.
 */
export class LogCleaner {
  private readonly logs = new Map<string, Registration>();
  private timer: TimerHandle | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private stopped = true;
  private readonly checkIntervalMs: number;
  private readonly minRatio: number;
  private readonly deleteRetentionMs: number;

  constructor(private readonly options: LogCleanerOptions) {
    this.checkIntervalMs = options.checkIntervalMs ?? 15_000;
    this.minRatio = options.minCleanableDirtyRatio ?? 0.5;
    this.deleteRetentionMs = options.deleteRetentionMs ?? 86_400_000;
  }

  register(name: string, log: CleanableLog, cleanableUpTo: () => number): () => void {
    this.logs.set(name, { name, log, cleanableUpTo });
    return () => void this.logs.delete(name);
  }

  /**
   * Starts cleaning: the first pass right away, then one every `checkIntervalMs`. Starting with a pass
   * (as Kafka's cleaner thread does) matters for a node restarted more often than the interval — a
   * crash loop under load — whose logs would otherwise never be compacted and load ever slower.
   */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.scheduleNext(0);
  }

  /** Stops the timer and waits for a pass in progress. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    this.timer = undefined;
    await this.running;
  }

  /** One pass over every log now; `force` compacts whatever the dirty ratio. Returns how many logs were compacted. */
  runOnce(force = false): Promise<number> {
    const pass = this.running.then(() => this.pass(force));
    this.running = pass.catch(() => undefined);
    return pass;
  }

  private scheduleNext(delayMs = this.checkIntervalMs): void {
    if (this.stopped) return;
    this.timer = this.options.clock.schedule(delayMs, () => {
      void this.runOnce().finally(() => this.scheduleNext());
    });
  }

  private async pass(force: boolean): Promise<number> {
    let compacted = 0;
    for (const r of [...this.logs.values()]) {
      if (this.stopped && !force) break;
      try {
        const upTo = Math.min(r.cleanableUpTo(), r.log.logEndOffset);
        if (r.log.flushedOffset < upTo) await r.log.flush();
        if (!force && r.log.dirtyRatio(upTo) < this.minRatio) continue;
        const stats = await r.log.compact(upTo, this.options.clock.now(), this.deleteRetentionMs);
        compacted++;
        this.options.onCleaned?.(r.name, stats);
      } catch (error) {
        this.options.onError?.(r.name, error);
      }
    }
    return compacted;
  }
}
