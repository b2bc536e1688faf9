import { join } from 'node:path';
import type { Logger } from '@nestjs/common';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { errnoCode, FileLog } from '@cohort/replication';
import type { LogFlushMetrics } from '../node-deps';

/**
 * The replica logs of a cluster node under DATA_DIR, and what their storage does: a log damaged where
 * written records are is cut on open (as Kafka does; as a follower the replica fetches the range back
 * from its leader), with an error line naming what was lost; a storage fault (a full disk) is told in
 * one line when the first log fails and one when the last heals (the replica manager retries), however
 * many partitions and writes it fails in between.
 */
export class ClusterLogStorage {
  private readonly faulted = new Set<number>();

  constructor(
    private readonly dataDir: string,
    private readonly logger: Logger,
    private readonly metrics: LogFlushMetrics | undefined,
  ) {}

  async open(partition: number): Promise<FileLog> {
    const log = await FileLog.open(join(this.dataDir, `__consumer_offsets-${partition}`), {
      onFault: (fault, cause) => this.onFault(partition, fault, cause),
    });
    const damage = log.recovery.damage;
    if (damage) {
      this.logger.error(
        `__consumer_offsets-${partition}: ${damage.reason} at position ${damage.position} of ${damage.file}; the replica was cut there, losing offsets ${damage.from}..${damage.to - 1}, which had been written; as a follower it fetches them again from its leader`,
      );
      this.metrics?.onLogCut?.(damage.to - damage.from);
    }
    return log;
  }

  /** Whether `error` is a storage fault already told (a replication error line would repeat it). */
  isToldFault(error: unknown): boolean {
    return this.faulted.size > 0 && error instanceof KafkaError && error.errorCode === ErrorCode.KAFKA_STORAGE_ERROR;
  }

  onHealed(partition: number): void {
    if (!this.faulted.delete(partition) || this.faulted.size > 0) return;
    this.logger.log(`storage of DATA_DIR ${this.dataDir} takes writes again: writes resumed`);
    this.metrics?.onStorageHealed?.();
  }

  private onFault(partition: number, fault: KafkaError, cause: unknown): void {
    const first = this.faulted.size === 0;
    this.faulted.add(partition);
    if (!first) return;
    const code = errnoCode(cause);
    this.logger.error(
      `storage fault in DATA_DIR ${this.dataDir}${code ? ` (${code})` : ''}: ${fault.message}. Writes to the partitions this node leads are answered KAFKA_STORAGE_ERROR and reads are still served; each failed log is tried again every second, no restart needed`,
    );
    this.metrics?.onStorageFault?.();
  }
}
