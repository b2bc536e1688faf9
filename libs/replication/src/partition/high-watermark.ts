import { isCaughtUp, type RemoteReplicaState } from './remote-replica';

export interface HighWatermarkInputs {
  currentHw: number;
  /** The leader's own LEO as it counts towards the HW (its flushed offset under LOG_FLUSH_POLICY=always). */
  leaderLogEndOffset: number;
  /** The leader's real LEO, against which followers are "caught up". */
  leaderLogEndOffsetForLag: number;
  committedIsrSize: number;
  effectiveMinIsr: number;
  maximalIsr: ReadonlySet<number>;
  remotes: Iterable<RemoteReplicaState>;
  nowMs: number;
  replicaLagTimeMaxMs: number;
  /** Not fenced, not shutting down, fetch node epoch current (KIP-903, KAFKA-15021). */
  isIsrEligible: (r: RemoteReplicaState) => boolean;
}

/**
 * The one function that computes the leader's HW (Partition.maybeIncrementLeaderHW):
 * the minimum LEO over the leader, the maximal ISR and the caught-up ISR-eligible replicas that are
 * trying to join; never lower than before (I9), and frozen while the committed ISR is below the
 * effective minimum (strict min ISR, KIP-966, I10). Returns the new HW (= `currentHw` if unchanged).
 */
export function computeLeaderHighWatermark(i: HighWatermarkInputs): number {
  if (i.committedIsrSize < i.effectiveMinIsr) return i.currentHw;
  let newHw = i.leaderLogEndOffset;
  for (const r of i.remotes) {
    const waitForJoin = isCaughtUp(r, i.leaderLogEndOffsetForLag, i.nowMs, i.replicaLagTimeMaxMs) && i.isIsrEligible(r);
    if (r.leo < newHw && (i.maximalIsr.has(r.nodeId) || waitForJoin)) newHw = r.leo;
  }
  return Math.max(newHw, i.currentHw);
}
