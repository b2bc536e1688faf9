/**
 * What a leader knows about one follower (Kafka's Replica.scala). One small explicit
 * object per remote replica; the HW and ISR decisions read only this.
 */
export interface RemoteReplicaState {
  nodeId: number;
  /** The follower's LEO = its last fetch offset; -1 while unknown (new leader, not fetched yet). */
  leo: number;
  logStartOffset: number;
  /** The leader's LEO when the previous fetch arrived. */
  lastFetchLeaderLogEndOffset: number;
  lastFetchTimeMs: number;
  /**
   * The largest time t such that the follower's most recent fetch offset was >= the leader's LEO at t.
   * ISR removal compares it to REPLICA_LAG_TIME_MAX_MS.
   */
  lastCaughtUpTimeMs: number;
  /** Registration epoch sent with the follower's fetches (KIP-903); -1 before its first fetch. */
  nodeEpoch: number;
}

export function newRemoteReplica(nodeId: number): RemoteReplicaState {
  return {
    nodeId,
    leo: -1,
    logStartOffset: -1,
    lastFetchLeaderLogEndOffset: -1,
    lastFetchTimeMs: 0,
    lastCaughtUpTimeMs: 0,
    nodeEpoch: -1,
  };
}

/**
 * Applies an accepted follower fetch of `fetchOffset` at `fetchTimeMs`; `leaderLogEndOffset` is the
 * leader's LEO captured before the read. The second branch (KAFKA-4485) keeps a follower that always
 * trails by the latest small produce counted as caught up: it reached, at its previous fetch, the
 * leader LEO of that moment.
 */
export function updateFetchState(
  s: RemoteReplicaState,
  fetchOffset: number,
  followerLogStartOffset: number,
  fetchTimeMs: number,
  leaderLogEndOffset: number,
  nodeEpoch: number,
): void {
  if (fetchOffset >= leaderLogEndOffset) s.lastCaughtUpTimeMs = Math.max(s.lastCaughtUpTimeMs, fetchTimeMs);
  else if (fetchOffset >= s.lastFetchLeaderLogEndOffset)
    s.lastCaughtUpTimeMs = Math.max(s.lastCaughtUpTimeMs, s.lastFetchTimeMs);
  s.leo = fetchOffset;
  s.logStartOffset = followerLogStartOffset;
  s.nodeEpoch = nodeEpoch;
  s.lastFetchLeaderLogEndOffset = Math.max(leaderLogEndOffset, s.lastFetchLeaderLogEndOffset);
  s.lastFetchTimeMs = fetchTimeMs;
}

/** Caught up = at the leader's LEO, or was at it within the last `maxLagMs`. */
export function isCaughtUp(
  s: RemoteReplicaState,
  leaderLogEndOffset: number,
  nowMs: number,
  maxLagMs: number,
): boolean {
  return s.leo === leaderLogEndOffset || nowMs - s.lastCaughtUpTimeMs <= maxLagMs;
}

/**
 * Reset when this node takes leadership in a higher epoch (Replica.resetReplicaState). A new leader
 * forgets everything: it cannot advance the HW until every ISR follower has fetched from it. A
 * re-elected leader keeps the positions it knew, measured from its new epoch start.
 */
export function resetForNewEpoch(
  s: RemoteReplicaState,
  wasLeader: boolean,
  inIsr: boolean,
  nowMs: number,
  leaderEpochStartOffset: number,
): void {
  if (!wasLeader) {
    s.leo = -1;
    s.logStartOffset = -1;
    s.lastFetchLeaderLogEndOffset = -1;
    s.lastFetchTimeMs = 0;
    s.lastCaughtUpTimeMs = inIsr ? nowMs : 0;
    s.nodeEpoch = -1;
  } else {
    s.lastFetchLeaderLogEndOffset = leaderEpochStartOffset;
    s.lastFetchTimeMs = inIsr ? nowMs : 0;
    s.lastCaughtUpTimeMs = inIsr ? nowMs : 0;
  }
}
