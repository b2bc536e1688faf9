import type { CoordinatorShard } from '../shard/coordinator-shard';
import { RETENTION_KEY } from '../timers/shard-timers';
import { expiredOffsets } from './offset-expiration';

/**
 * The shard's purge task (Kafka's `cleanupGroupMetadata` every OFFSETS_RETENTION_CHECK_INTERVAL_MS):
 * expired offsets get tombstones, and an Empty group left without offsets goes Dead with them.
 */
export class OffsetRetention {
  constructor(private readonly shard: CoordinatorShard) {}

  start(): void {
    this.shard.timers.set(RETENTION_KEY, this.shard.env.config.offsetsRetentionCheckIntervalMs, () => {
      if (!this.shard.isActive) return;
      this.run();
      this.start();
    });
  }

  /** One purge cycle over every group of the shard. */
  run(): void {
    const { config, metrics, logger } = this.shard.env;
    const retentionMs = config.offsetsRetentionMinutes * 60_000;
    const now = this.shard.now;
    for (const group of [...this.shard.groups.values()]) {
      const expired = expiredOffsets(group, now, retentionMs);
      const emptyAndUnused = group.is('Empty') && group.numPending === 0 && !group.offsets.hasOffsets;
      if (expired.length === 0 && !emptyAndUnused) continue;
      this.shard.offsets.delete(group, expired, false, (error) => {
        if (error !== 0) {
          logger.warn(`expiring ${expired.length} offsets of group ${group.groupId} failed (error ${error}); retrying next cycle`);
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
