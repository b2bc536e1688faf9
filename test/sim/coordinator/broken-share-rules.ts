import { SharePartition } from '@cohort/coordinator/share/share-partition';

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
} satisfies Record<string, () => () => void>;

export type BrokenShareRule = keyof typeof BROKEN_SHARE_RULES;

export const BROKEN_SHARE_RULE_NAMES = Object.keys(BROKEN_SHARE_RULES) as BrokenShareRule[];
