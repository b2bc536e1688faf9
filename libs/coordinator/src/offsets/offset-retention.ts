import type { GroupRegistry } from '../group/group-registry';
import type { OffsetWrites } from './offset-writes';
import type { ResultSink } from '../rebalance/rebalance-ports';
import type { ShardEnv } from '../context/shard-env';
import type { ShardTimers } from '../timers/shard-timers';
import { RETENTION_KEY } from '../timers/shard-timers';
import { expiredOffsets } from './offset-expiration';

/**
 * The shard's purge task (Kafka's `cleanupGroupMetadata` every OFFSETS_RETENTION_CHECK_INTERVAL_MS):
 * expired offsets get tombstones, and an Empty group left without offsets goes Dead with them.
 */
export class OffsetRetention {
  constructor(
    private readonly groups: GroupRegistry,
    private readonly offsets: OffsetWrites,
    private readonly timers: ShardTimers,
    private readonly sink: ResultSink,
    private readonly env: Pick<ShardEnv, 'clock' | 'config' | 'metrics' | 'logger'>,
  ) {}

  start(): void {
    this.timers.set(RETENTION_KEY, this.env.config.offsetsRetentionCheckIntervalMs, () => {
      if (!this.groups.serving) return;
      this.run();
      this.start();
    });
  }

  /** One purge cycle over every group of the shard. */
  run(): void {
    const { config, metrics, logger } = this.env;
    const retentionMs = config.offsetsRetentionMinutes * 60_000;
    const now = this.env.clock.now();
    for (const group of this.groups.list()) {
      const expired = expiredOffsets(group, now, retentionMs);
      const emptyAndUnused = group.is('Empty') && group.numPending === 0 && !group.offsets.hasOffsets;
      if (expired.length === 0 && !emptyAndUnused) continue;
      void this.sink.complete(this.offsets.delete(group, expired, false)).then((error) => {
        if (error !== 0) {
          logger.warn(
            `expiring ${expired.length} offsets of group ${group.groupId} failed (error ${error}); retrying next cycle`,
          );
          return;
        }
        if (expired.length > 0) {
          metrics.onOffsetsExpired?.(expired.length);
          logger.info(`expired ${expired.length} offsets of group ${group.groupId}`);
        }
      });
    }
  }
}
