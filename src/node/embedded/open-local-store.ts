import { Logger } from '@nestjs/common';
import { type Clock, LocalPartitionStore, STORAGE_RETRY_MAX_MS } from '@cohort/replication';
import type { CohortConfig } from '../../config/cohort-config';
import type { LogFlushMetrics } from '../node-deps';

/**
 * The embedded PartitionStore over segment files in DATA_DIR. Opening recovers every partition's log
 * (a torn tail is truncated at the last whole batch), replays the log journal under LOG_FLUSH_POLICY=always
 * (what a crash took from the segment files), and makes this node leader of all of them in a new leader
 * epoch. Recoveries that dropped bytes or replayed the journal are logged, since they mean the previous
 * run crashed.
 */
export function openLocalStore(
  config: CohortConfig,
  clock: Clock,
  logMetrics?: LogFlushMetrics,
): Promise<LocalPartitionStore> {
  const logger = new Logger('LocalPartitionStore');
  return LocalPartitionStore.open({
    dataDir: config.dataDir,
    clock,
    numPartitions: config.offsetsTopicNumPartitions,
    flushPolicy: config.logFlushPolicy,
    truncateOnCorruption: config.logRecoveryTruncateOnCorruption,
    onRecovery: (partition, report) => {
      const damage = report.damage;
      if (damage) {
        // Allowed by LOG_RECOVERY_TRUNCATE_ON_CORRUPTION, and still a loss the operator must know of.
        logger.error(
          `__consumer_offsets-${partition}: ${damage.reason} at position ${damage.position} of ${damage.file}; the log was cut there as LOG_RECOVERY_TRUNCATE_ON_CORRUPTION=true allows, losing offsets ${damage.from}..${damage.to - 1}, which had been written`,
        );
        logMetrics?.onLogCut?.(damage.to - damage.from);
      } else if (!report.clean)
        logger.warn(`__consumer_offsets-${partition} recovered after an unclean stop: ${JSON.stringify(report)}`);
    },
    onDamagedPartition: (partition, damage) => {
      logger.error(
        `__consumer_offsets-${partition} is not served: ${damage.reason} at position ${damage.position} of ${damage.file}, and cutting the log there would lose offsets ${damage.from}..${damage.to - 1}, which had been written. Its files are left as they are: restore them, or restart with LOG_RECOVERY_TRUNCATE_ON_CORRUPTION=true to cut the log and lose those offsets`,
      );
    },
    onLogFlush: logMetrics && ((durationMs, bytes) => logMetrics.onLogFlush(durationMs, bytes)),
    onJournalRecovery: (report) => {
      if (report.entries > 0 || report.tornBytes > 0) {
        logger.warn(`replayed the log journal after an unclean stop: ${JSON.stringify(report)}`);
      }
    },
    onError: (error, context) => logger.error(`${context}: ${error instanceof Error ? error.message : String(error)}`),
    // One line when the storage fails and one when it heals, however many writes fail in between.
    onStorageFault: (fault) => {
      logger.error(
        `storage fault in DATA_DIR ${config.dataDir}${fault.code ? ` (${fault.code})` : ''}: ${fault.cause}. Writes are answered KAFKA_STORAGE_ERROR and reads are still served; writes resume by themselves once the storage takes them again (tried every ${STORAGE_RETRY_MAX_MS / 1000} s at most, no restart needed)`,
      );
      logMetrics?.onStorageFault?.();
    },
    onStorageHealed: (fault, downMs, attempts) => {
      logger.log(
        `storage of DATA_DIR ${config.dataDir} takes writes again after ${(downMs / 1000).toFixed(1)} s (${attempts} attempt${attempts === 1 ? '' : 's'}): writes resumed${fault.code ? ` after ${fault.code}` : ''}`,
      );
      logMetrics?.onStorageHealed?.();
    },
  });
}
