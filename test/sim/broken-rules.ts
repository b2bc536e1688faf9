import { KAFKA_REPLICATION_RULES, type ReplicationRules } from '@cohort/replication/testing';

/**
 * Replication rules broken on purpose, to prove that the simulator's invariant checks notice
 * (`simulator-bites.spec.ts`, `npm run sim -- --break <rule>`). Each is Kafka's rules with one replaced;
 * they exist only here and reach a node through its `rules` option.
 */
export const BROKEN_RULES = {
  /** The HW as the *largest* follower LEO in the maximal ISR instead of the smallest. */
  'hw-formula': {
    ...KAFKA_REPLICATION_RULES,
    leaderHighWatermark: (i) => {
      if (i.committedIsrSize < i.effectiveMinIsr) return i.currentHw;
      let best = -1;
      for (const r of i.remotes) if (i.maximalIsr.has(r.nodeId)) best = Math.max(best, r.leo);
      return Math.max(i.currentHw, Math.min(best, i.leaderLogEndOffset));
    },
  },
  /** Pre-KIP-101: truncate to the local HW on following a new leader or epoch. */
  'truncate-to-hw': {
    ...KAFKA_REPLICATION_RULES,
    onStartFollowing: (replica) => replica.truncateTo(replica.hw, 'broken rule: truncate to HW on becoming follower'),
  },
  /** ISR expansion without the epoch-start check of KAFKA-7128: reaching the HW is enough. */
  'isr-expand-without-epoch-start': {
    ...KAFKA_REPLICATION_RULES,
    mayJoinIsr: (followerLeo, highWatermark) => followerLeo >= highWatermark,
  },
} satisfies Record<string, ReplicationRules>;

export type BrokenRule = keyof typeof BROKEN_RULES;

export const BROKEN_RULE_NAMES = Object.keys(BROKEN_RULES) as BrokenRule[];

/** The rules a simulated node runs: Kafka's, or Kafka's with `broken` replaced. */
export function rulesFor(broken: BrokenRule | undefined): ReplicationRules | undefined {
  return broken === undefined ? undefined : BROKEN_RULES[broken];
}
