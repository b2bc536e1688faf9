import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { PartitionStore } from '@cohort/replication';
import type { ClassicGroup } from '../group/classic-group';
import type { ConsumerGroup } from '../consumer/consumer-group';
import type { LoadedSharePartition } from '../share/share-state-replay';
import type { ShareGroup } from '../share/share-group-model';
import type { ShardEnv } from '../context/shard-env';
import type { ShardTimers } from '../timers/shard-timers';
import { LOAD_RETRY_KEY } from '../timers/shard-timers';

/** What a load needs of its shard: where to read, whether it is still loading, and where to hand the groups. */
export interface LoadTarget {
  readonly partition: number;
  readonly leaderEpoch: number;
  readonly status: string;
  readonly env: ShardEnv;
  readonly timers: ShardTimers;
  activate(groups: ClassicGroup[], consumerGroups: ConsumerGroup[], shareGroups: ShareGroup[]): void;
  /** The share partitions' states the log holds, handed over right after `activate`. */
  installSharePartitions?(loaded: LoadedSharePartition[]): void;
}
import { PartitionReplay } from '../loader/partition-replay';

const RETRY_AFTER_MS = 1000;

/**
 * Loads a shard (Kafka's `scheduleLoadGroupsAndOffsets` + K:RT LOADING): note the log end offset at
 * election, replay the log from its start up to it in chunks (visited in place where the store can
 * scan), wait until the high watermark has passed it (so nothing served was uncommitted), then serve. Until then requests get COORDINATOR_LOAD_IN_PROGRESS.
 * A read that fails is retried while this node still leads the partition in this epoch.
 */
export function loadShard(shard: LoadTarget, store: PartitionStore): void {
  const { logger, metrics, config, clock } = shard.env;
  const started = clock.now();
  const stillLoading = (): boolean => shard.status === 'LOADING';
  const attempt = async (): Promise<void> => {
    const { logStartOffset, logEndOffset } = store.offsets(shard.partition);
    const replay = new PartitionReplay(
      (message) => logger.warn(`__consumer_offsets-${shard.partition}: ${message}`),
      config.rebalanceHistorySize,
    );
    let next = logStartOffset;
    while (next < logEndOffset) {
      // A scan applies the records as it reads them, in place; a replay left behind by a resignation is dropped.
      const nextOffset = store.scan
        ? await store.scan(shard.partition, next, logEndOffset, config.loadBatchRecords, replay.visit)
        : await readAndApply(store, shard.partition, next, logEndOffset, config.loadBatchRecords, replay);
      if (!stillLoading()) return;
      if (nextOffset <= next)
        throw new Error(`read of partition ${shard.partition} made no progress at offset ${next}`);
      next = nextOffset;
    }
    await awaitCommitted(shard, store, logEndOffset, stillLoading);
    if (!stillLoading()) return;
    const groups = replay.build(clock.now(), config.rebalanceHistorySize);
    const consumerGroups = replay.consumerGroups();
    const shareGroups = replay.share.list();
    shard.activate(groups, consumerGroups, shareGroups);
    shard.installSharePartitions?.(replay.sharePartitions.list());
    const offsets = groups.reduce((n, g) => n + g.offsets.size, 0);
    metrics.onPartitionLoaded?.(shard.partition, clock.now() - started, groups.length, offsets);
    const loaded =
      `loaded __consumer_offsets-${shard.partition} (epoch ${shard.leaderEpoch}): ${replay.records} records, ${groups.length} groups, ${consumerGroups.length} consumer groups, ${shareGroups.length} share groups, ${offsets} offsets in ${clock.now() - started} ms` +
      (replay.skipped > 0 ? `, ${replay.skipped} records skipped` : '');
    if (replay.skipped > 0) logger.warn(loaded);
    else logger.debug?.(loaded);
  };
  const run = (): void => {
    attempt().catch((error: unknown) => {
      if (!stillLoading()) return;
      logger.error(
        `loading __consumer_offsets-${shard.partition} failed, retrying in ${RETRY_AFTER_MS} ms: ${String(error)}`,
      );
      shard.timers.set(LOAD_RETRY_KEY, RETRY_AFTER_MS, () => {
        if (stillLoading()) run();
      });
    });
  };
  run();
}

async function readAndApply(
  store: PartitionStore,
  partition: number,
  from: number,
  upTo: number,
  maxRecords: number,
  replay: PartitionReplay,
): Promise<number> {
  const { records, nextOffset } = await store.read(partition, from, upTo, maxRecords);
  for (const record of records) replay.apply(record);
  return nextOffset;
}

/** Waits for the high watermark to pass `endOffset - 1`; a timeout only means "not yet". */
async function awaitCommitted(
  shard: LoadTarget,
  store: PartitionStore,
  endOffset: number,
  stillLoading: () => boolean,
): Promise<void> {
  if (endOffset <= 0 || store.offsets(shard.partition).highWatermark >= endOffset) return;
  for (;;) {
    try {
      await store.awaitCommit(
        shard.partition,
        shard.leaderEpoch,
        endOffset - 1,
        shard.env.config.offsetsCommitTimeoutMs,
      );
      return;
    } catch (error) {
      if (!stillLoading()) return;
      if (!(error instanceof KafkaError && error.errorCode === ErrorCode.REQUEST_TIMED_OUT)) throw error;
    }
  }
}
