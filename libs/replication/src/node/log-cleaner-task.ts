import type { CleanableLog } from '../log/cleanable-log';
import type { PartitionLog } from '../log/partition-log';
import type { Partition } from '../partition/partition';
import type { ReplicationConfig } from '../replication-config';
import type { TaskScope } from './task-scope';

/** Kafka's min.cleanable.dirty.ratio. */
const MIN_CLEANABLE_DIRTY_RATIO = 0.5;

function isCleanable(log: PartitionLog): log is CleanableLog {
  return typeof (log as Partial<CleanableLog>).dirtyRatio === 'function';
}

/**
 * The log cleaner: every LOG_CLEANER interval, each replica whose log below its HW is
 * dirty enough is compacted up to the HW — never above it, so the truncatable tail is never touched
 * (I25). Offsets and epochs are kept by the log's compaction; each replica cleans independently.
 */
export class LogCleanerTask {
  private readonly cleaning = new Set<number>();

  constructor(
    private readonly scope: TaskScope,
    private readonly config: ReplicationConfig,
    private readonly onError: (error: unknown, context: string) => void,
  ) {}

  start(partitions: () => Partition[]): void {
    this.scope.every(this.config.logCleanerIntervalMs, () => {
      for (const p of partitions()) void this.clean(p, false);
    });
  }

  /** Compacts `p` below its HW now if it is dirty enough (or unconditionally with `force`). */
  async clean(p: Partition, force: boolean): Promise<boolean> {
    if (this.cleaning.has(p.partition) || !isCleanable(p.log)) return false;
    const upTo = p.hw;
    if (!force && p.log.dirtyRatio(upTo) < MIN_CLEANABLE_DIRTY_RATIO) return false;
    this.cleaning.add(p.partition);
    try {
      await p.log.compact(upTo, this.scope.clock.now(), this.config.deleteRetentionMs);
      return true;
    } catch (e) {
      this.onError(e, `compacting partition ${p.partition}`);
      return false;
    } finally {
      this.cleaning.delete(p.partition);
    }
  }
}
