import type { EpochEndOffset } from './epoch-entry';

/** Where a follower truncates, and whether it must ask again with its (new) latest epoch (KIP-279). */
export interface TruncationPoint {
  offset: number;
  /** True when the follower's epoch differs from the leader's answer: refetch to confirm the point. */
  iterate: boolean;
}

/**
 * The follower's truncation rule (AbstractFetcherThread.getOffsetTruncationState):
 * only epochs decide, never the HW. `leader` is the leader's (epoch, endOffset) for the follower's last
 * fetched epoch; `ownEndFor` is the follower's own `endOffsetFor`.
 */
export function truncationPoint(
  leader: EpochEndOffset,
  ownEndFor: (epoch: number) => EpochEndOffset,
  ownLogEndOffset: number,
  fetchOffset: number,
): TruncationPoint {
  if (leader.endOffset < 0) return { offset: Math.min(fetchOffset, ownLogEndOffset), iterate: false };
  if (leader.epoch < 0) return { offset: Math.min(leader.endOffset, ownLogEndOffset), iterate: false };
  const own = ownEndFor(leader.epoch);
  if (own.epoch < 0 || own.endOffset < 0)
    return { offset: Math.min(leader.endOffset, ownLogEndOffset), iterate: false };
  if (own.epoch !== leader.epoch) return { offset: Math.min(own.endOffset, ownLogEndOffset), iterate: true };
  return { offset: Math.min(leader.endOffset, own.endOffset, ownLogEndOffset), iterate: false };
}
