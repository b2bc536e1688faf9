import { ErrorCode } from '@cohort/protocol';
import type { GroupRegistry } from '../group/group-registry';
import type { OffsetWrites } from './offset-writes';
import type { ResultSink } from '../rebalance/rebalance-ports';
import type { ShardEnv } from '../context/shard-env';
import type { ShardTimers } from '../timers/shard-timers';
import { RETENTION_KEY } from '../timers/shard-timers';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { offsetWriteError } from '../context/store-errors';
import { expiredOffsets } from './offset-expiration';

/** A group's deletion as DeleteGroups writes it: its tombstones, applied at once, taken back if their write fails. */
export type GroupDeletion = Pick<CoordinatorResult<never>, 'records' | 'appendFuture'>;

/** An Empty consumer group (KIP-848) or share group (KIP-932) of the shard, and how DeleteGroups deletes it. */
export interface EmptyGroup {
  readonly groupId: string;
  readonly type: 'consumer' | 'share';
  delete(): GroupDeletion;
}

/**
 * The shard's purge task (Kafka's `cleanupGroupMetadata` every OFFSETS_RETENTION_CHECK_INTERVAL_MS):
 * expired offsets get tombstones, and then every group that is Empty and left without offsets is
 * deleted, whatever its type: a classic group goes Dead with its offsets' tombstones; a consumer group
 * (whose offsets an Empty classic group of the same id holds) gets the tombstones DeleteGroups writes,
 * in the same write as its last offsets' ones; a share group gets its tombstones and its share
 * partitions' state tombstones. A group with members, or with offsets left or being written, stays.
 */
export class OffsetRetention {
  constructor(
    private readonly groups: GroupRegistry,
    private readonly offsets: OffsetWrites,
    private readonly emptyGroups: () => EmptyGroup[],
    private readonly timers: ShardTimers,
    private readonly sink: ResultSink,
    private readonly env: Pick<ShardEnv, 'clock' | 'config' | 'metrics' | 'logger'>,
    /**
     * Whether a consumer group (KIP-848) of that id subscribes to the topic, by name or by a regex that
     * matches it: Kafka's `cleanupExpiredOffsets` never expires such a topic's offsets, whatever their age.
     */
    private readonly consumerGroupSubscribes: (groupId: string, topic: string) => boolean = () => false,
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
    const retentionMs = this.env.config.offsetsRetentionMinutes * 60_000;
    const now = this.env.clock.now();
    const empty = new Map(this.emptyGroups().map((group) => [group.groupId, group]));
    for (const group of this.groups.list()) {
      // The offsets of a consumer group's subscribed topics stay while it subscribes to them (its members
      // may have committed them long ago and read on since without committing).
      const expired = expiredOffsets(group, now, retentionMs).filter(
        ({ topic }) => !this.consumerGroupSubscribes(group.groupId, topic),
      );
      const emptyAndUnused = group.is('Empty') && group.numPending === 0 && !group.offsets.hasOffsets;
      // The Empty consumer group whose offsets this group holds goes with its last ones, and not before.
      const consumerGroup = empty.get(group.groupId);
      empty.delete(group.groupId);
      if (expired.length === 0 && !emptyAndUnused) continue;
      const consumerGroupGoes = consumerGroup?.type === 'consumer' && this.offsets.leavesUnused(group, expired);
      const offsetsGone = this.offsets.delete(group, expired, false);
      const groupGone = consumerGroupGoes ? consumerGroup.delete() : undefined;
      this.purge(combined(offsetsGone, groupGone), group, expired.length, groupGone ? 'consumer' : undefined);
    }
    // Consumer groups without offsets, and share groups (their share partitions' state is no offset).
    for (const group of empty.values())
      if (!this.holdsOffsets(group.groupId)) this.purge(deletion(group.delete()), group, 0, group.type);
  }

  /** Whether a classic group of that id is live (it holds offsets, or is being written). */
  private holdsOffsets(groupId: string): boolean {
    const holder = this.groups.get(groupId);
    return holder !== undefined && !holder.is('Dead');
  }

  private purge(
    result: CoordinatorResult<number>,
    group: { groupId: string },
    expired: number,
    deleted: 'consumer' | 'share' | undefined,
  ): void {
    const { metrics, logger } = this.env;
    void this.sink.complete(result).then((error) => {
      if (error !== undefined && error !== ErrorCode.NONE) {
        logger.warn(
          `purging group ${group.groupId} (${expired} expired offsets${deleted ? `, the Empty ${deleted} group` : ''}) failed (error ${error}); retrying next cycle`,
        );
        return;
      }
      if (expired > 0) {
        metrics.onOffsetsExpired?.(expired);
        logger.info(`expired ${expired} offsets of group ${group.groupId}`);
      }
      if (deleted) logger.info(`deleted the Empty ${deleted} group ${group.groupId}`);
    });
  }
}

function deletion(gone: GroupDeletion): CoordinatorResult<number> {
  return {
    records: gone.records,
    response: ErrorCode.NONE,
    onFailure: (outcome) => offsetWriteError(outcome.storeError),
    appendFuture: gone.appendFuture,
  };
}

/** The offsets' tombstones and then the consumer group's, in one write (Kafka's one cleanup batch). */
function combined(
  offsetsGone: CoordinatorResult<number>,
  groupGone: GroupDeletion | undefined,
): CoordinatorResult<number> {
  if (!groupGone) return offsetsGone;
  return {
    records: [...offsetsGone.records, ...groupGone.records],
    response: ErrorCode.NONE,
    onFailure: (outcome) => offsetWriteError(outcome.storeError),
    appendFuture: (outcome) => {
      offsetsGone.appendFuture?.(outcome);
      groupGone.appendFuture?.(outcome);
    },
  };
}
