import type { Redis } from 'ioredis';
import type { PartitionState } from '../partition-state';
import { isForked, repairForkedPartition } from './forked-partition-repair';
import { decodePartitionState, encodePartitionState } from './partition-state-json';
import { REPAIR_PARTITION, RESTORE_METADATA } from './recovery-script';
import { describeFailure } from './redis-failures';
import type { RedisMetadataKeys } from './redis-metadata-keys';
import type { RedisMetadataStoreEvents } from './redis-metadata-store-options';
import type { SeenMetadata } from './seen-metadata';

/**
 * Puts back into Redis what one store has seen, after Redis came back empty or from a replica that
 * missed writes (recovery-script.ts): the metadata when it is missing, and a repaired state for every
 * partition whose stored copy forked from the one seen. One run at a time; concurrent callers share it.
 */
export class MetadataRestorer {
  private running: Promise<void> | null = null;

  constructor(
    private readonly redis: Redis,
    private readonly keys: RedisMetadataKeys,
    private readonly seen: SeenMetadata,
    private readonly recoveryWindowMs: number,
    private readonly where: string,
    private readonly events: RedisMetadataStoreEvents | undefined,
  ) {}

  /** Puts back what the store has seen (single flight). */
  restore(): Promise<void> {
    this.running ??= this.run().finally(() => (this.running = null));
    return this.running;
  }

  /** Resolves once no restore is running (whatever its outcome). */
  async settled(): Promise<void> {
    if (this.running) await this.running.catch(() => undefined);
  }

  private async run(): Promise<void> {
    const k = this.keys;
    const args: (string | number)[] = [this.recoveryWindowMs, this.seen.maxNodeEpoch, this.seen.maxControllerEpoch];
    for (const s of this.seen.partitionStates()) args.push(s.partition, s.partitionEpoch, encodePartitionState(s));
    let outcome: [string, number, ...string[]];
    try {
      outcome = (await RESTORE_METADATA.run(
        this.redis,
        [k.alive, k.nodeEpoch, k.controllerEpoch, k.partitions, k.changes],
        args,
      )) as [string, number, ...string[]];
    } catch (error) {
      throw describeFailure(this.where, RESTORE_METADATA, error);
    }
    const [mode, restored, ...stored] = outcome;
    if (mode === 'initialized' || (mode === 'merged' && Number(restored) > 0))
      this.events?.onRestored?.(mode, Number(restored));
    await this.repairForks(stored);
  }

  /**
   * Redis holds an older or a different copy of a partition state than one this store saw: writes were
   * lost without the metadata being lost (a failover to a replica that missed them). Replace it with a
   * state newer in partition and leader epoch than both, so no leader epoch is ever used twice.
   */
  private async repairForks(storedJson: string[]): Promise<void> {
    const seen = new Map<number, PartitionState>(this.seen.partitionStates().map((s) => [s.partition, s]));
    for (const json of storedJson) {
      const stored = decodePartitionState(json);
      const mine = seen.get(stored.partition);
      if (!mine || !isForked(stored, mine)) continue;
      const repaired = repairForkedPartition(stored, mine);
      const repairedJson = encodePartitionState(repaired);
      const k = this.keys;
      const done = await REPAIR_PARTITION.run(
        this.redis,
        [k.alive, k.partitions, k.changes],
        [stored.partition, json, repairedJson],
      ).catch((e: unknown) => {
        throw describeFailure(this.where, REPAIR_PARTITION, e);
      });
      if (done === 1) {
        this.seen.observePartition(repaired);
        this.events?.onForkRepaired?.(stored, mine, repaired);
      }
    }
  }
}
