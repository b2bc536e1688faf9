import { NO_LEADER, type IsrMember, type PartitionState } from '../partition-state';
import { encodePartitionState } from './partition-state-json';

/**
 * The repair of a partition whose history forked because Redis lost writes some node had seen — a
 * Sentinel promoted a replica that missed them, after the recovery window (recovery-script.ts) — so
 * that Redis holds `stored` while a node saw `seen`, newer or of the same partition epoch but different.
 * Both may have been acted on: a leader elected in `seen` may be leading in the same leader epoch as
 * the one in `stored`. The repair is a new state, strictly newer than both in partition epoch *and*
 * leader epoch (a forced bump), so every replica re-evaluates and neither leader of the
 * forked epoch can commit in it again. Its ISR is what both sides agree on: a member dropped on either
 * side may lack records committed on that side (the HW moved without it), so only the intersection is
 * known to hold everything either side committed. The leader is `stored`'s, then `seen`'s, if it is
 * still in that ISR; else the first member in assignment order; else none (the partition waits, as
 * with any ISR that cannot elect); with no member in common Redis's members stay, leaderless.
 */
export function repairForkedPartition(stored: PartitionState, seen: PartitionState): PartitionState {
  const same = (a: IsrMember, b: IsrMember) => a.nodeId === b.nodeId && a.nodeEpoch === b.nodeEpoch;
  const isr = stored.isr.filter((m) => seen.isr.some((o) => same(m, o)));
  const inIsr = (id: number) => isr.some((m) => m.nodeId === id);
  const leader =
    [stored.leader, seen.leader, ...stored.replicas].find((id) => id !== NO_LEADER && inIsr(id)) ?? NO_LEADER;
  return {
    ...stored,
    // Never empty (I22): with nothing in common, Redis's members stay and nobody leads.
    isr: isr.length > 0 ? isr : stored.isr,
    elr: [],
    leader,
    leaderEpoch: Math.max(stored.leaderEpoch, seen.leaderEpoch) + 1,
    partitionEpoch: Math.max(stored.partitionEpoch, seen.partitionEpoch) + 1,
  };
}

/**
 * Whether `seen` shows a history Redis no longer has (a lost write), given what Redis holds: Redis is
 * older, or holds another state of the same partition epoch, or holds a newer one that cannot follow
 * from `seen` — every leader change bumps the leader epoch (partition-change.ts), so a later state
 * never has a lower leader epoch, nor another leader in the same one. That last case is a controller
 * that wrote more than once on the stale copy before this node reconnected.
 */
export function isForked(stored: PartitionState, seen: PartitionState): boolean {
  if (seen.partitionEpoch > stored.partitionEpoch) return true;
  if (seen.partitionEpoch === stored.partitionEpoch) return encodePartitionState(seen) !== encodePartitionState(stored);
  return (
    stored.leaderEpoch < seen.leaderEpoch || (stored.leaderEpoch === seen.leaderEpoch && stored.leader !== seen.leader)
  );
}
