import { SharePartition } from '@cohort/coordinator/share/share-partition';
import { DeliveryHorizon } from '@cohort/coordinator/share/share-partition-horizon';

/**
 * Share-partition rules broken on purpose, to prove the simulator's share checks notice
 * (`npm run sim -- --consumer --share --break <rule>`, `consumer-groups-on-replication.spec.ts`). The
 * variant exists only here: it wraps the coordinator's `SharePartition` for one run and is undone after.
 */
export const BROKEN_SHARE_RULES = {
  /** A redelivery of dead letters below SPSO brings SPSO back without a new state epoch. */
  'redeliver-without-new-state-epoch': () => {
    const original = SharePartition.prototype.redeliver;
    SharePartition.prototype.redeliver = function (this: SharePartition, first: number, last: number): number {
      const epoch = this.stateEpoch;
      const revived = original.call(this, first, last);
      this.stateEpoch = epoch;
      return revived;
    };
    return () => {
      SharePartition.prototype.redeliver = original;
    };
  },
  /**
   * New offsets are leased without a write, as Kafka's share-partition leader does, and records hold no
   * delivery horizon: a lease leaves before the log counts it, so a failover before the next record of
   * its partition gives its offsets again at the same count.
   */
  'lease-without-horizon': () => {
    const acquire = SharePartition.prototype.acquire;
    const toWrite = DeliveryHorizon.prototype.toWrite;
    SharePartition.prototype.acquire = function (this: SharePartition, ...args: Parameters<typeof acquire>) {
      this.horizon.committed = Number.MAX_SAFE_INTEGER;
      return acquire.apply(this, args);
    };
    DeliveryHorizon.prototype.toWrite = (endOffset: number) => endOffset;
    return () => {
      SharePartition.prototype.acquire = acquire;
      DeliveryHorizon.prototype.toWrite = toWrite;
    };
  },
} satisfies Record<string, () => () => void>;

export type BrokenShareRule = keyof typeof BROKEN_SHARE_RULES;

export const BROKEN_SHARE_RULE_NAMES = Object.keys(BROKEN_SHARE_RULES) as BrokenShareRule[];
