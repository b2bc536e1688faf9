import { computeLeaderHighWatermark, type HighWatermarkInputs } from './high-watermark';

/** What a rule may do to the replica it is applied to when it starts following. */
export interface FollowingReplica {
  readonly hw: number;
  truncateTo(offset: number, reason: string): void;
}

/**
 * The replication rules a `Partition` applies, as one strategy: the production node always gets
 * `KAFKA_REPLICATION_RULES`; the simulator passes deliberately wrong variants (test/sim/broken-rules.ts)
 * to prove that its invariant checks notice, so no production code path branches on a fault.
 */
export interface ReplicationRules {
  /** The leader's new HW from its inputs (Partition.maybeIncrementLeaderHW). */
  leaderHighWatermark(inputs: HighWatermarkInputs): number;
  /**
   * Runs when the replica starts following a new leader or leader epoch. Kafka (KIP-101, KIP-279)
   * truncates nothing here: a follower truncates only by epochs, from the leader's answer (I5).
   */
  onStartFollowing(replica: FollowingReplica): void;
  /**
   * Whether a follower that has fetched up to `followerLeo` is in sync enough to join the ISR
   * (Partition.isFollowerInSync): it reached the HW and the start of the current leader epoch (KAFKA-7128, I18).
   */
  mayJoinIsr(followerLeo: number, highWatermark: number, leaderEpochStartOffset: number): boolean;
}

/** The rules as Kafka has them; the only ones a production node uses. */
export const KAFKA_REPLICATION_RULES: ReplicationRules = {
  leaderHighWatermark: computeLeaderHighWatermark,
  onStartFollowing: () => {},
  mayJoinIsr: (followerLeo, highWatermark, leaderEpochStartOffset) =>
    followerLeo >= highWatermark && followerLeo >= leaderEpochStartOffset,
};
