import { Logger } from '@nestjs/common';
import { type Clock, LocalPartitionStore } from '@cohort/replication';
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
    onRecovery: (partition, report) => {
      if (!report.clean)
        logger.warn(`__consumer_offsets-${partition} recovered after an unclean stop: ${JSON.stringify(report)}`);
    },
    onLogFlush: logMetrics && ((durationMs, bytes) => logMetrics.onLogFlush(durationMs, bytes)),
    onJournalRecovery: (report) => {
      if (report.entries > 0 || report.tornBytes > 0) {
        logger.warn(`replayed the log journal after an unclean stop: ${JSON.stringify(report)}`);
      }
    },
    onError: (error, context) => logger.error(`${context}: ${error instanceof Error ? error.message : String(error)}`),
  });
}
