import type { IsrMember, LeaderRecoveryState } from '../metadata/partition-state';

/**
 * The leader's view of the ISR (Partition.scala PartitionState). At most one change
 * is in flight: while it is, no other is proposed (I17).
 * - committed: the ISR as the controller last accepted it.
 * - pendingExpand: counts the new member at once (maximal ISR) — that can only slow the HW, so it is
 *   safe even if the controller refuses.
 * - pendingShrink: keeps counting the removed members until the controller accepts — a refused shrink
 *   must not have let the HW run ahead of them.
 */
export type IsrState =
  | { kind: 'committed'; isr: IsrMember[]; recovery: LeaderRecoveryState }
  | { kind: 'pendingExpand'; isr: IsrMember[]; recovery: LeaderRecoveryState; proposed: IsrMember[]; newMember: number }
  | { kind: 'pendingShrink'; isr: IsrMember[]; recovery: LeaderRecoveryState; proposed: IsrMember[]; removed: number[] }
  | { kind: 'pendingRecovery'; isr: IsrMember[]; recovery: LeaderRecoveryState; proposed: IsrMember[] };

/** The committed ISR plus a member being added: what the HW must wait for. */
export function maximalIsr(state: IsrState): Set<number> {
  const ids = new Set(state.isr.map((m) => m.nodeId));
  if (state.kind === 'pendingExpand') ids.add(state.newMember);
  return ids;
}

export function isPending(state: IsrState): boolean {
  return state.kind !== 'committed';
}

export function proposalOf(state: IsrState): { isr: IsrMember[]; recovery: LeaderRecoveryState } | undefined {
  if (state.kind === 'committed') return undefined;
  return { isr: state.proposed, recovery: state.kind === 'pendingRecovery' ? 'RECOVERED' : state.recovery };
}
