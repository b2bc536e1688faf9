import type { GroupStateName } from '@cohort/protocol';

/**
 * Kafka's classic group states (GroupMetadata.scala / ClassicGroupState.java) and, per state, how each
 * request is answered and what moves the group on. The legal previous states are data
 * (`VALID_PREVIOUS_STATES`), checked by every transition.
 *
 * Empty
 *   answers: JoinGroup from a new member → add it and rebalance; Sync/Heartbeat/Leave → UNKNOWN_MEMBER_ID;
 *            OffsetCommit only with generation -1 (simple consumers, admin); OffsetFetch normally.
 *   moves on: first JoinGroup → PreparingRebalance; last offset expired or deleted, or DeleteGroups → Dead;
 *             partition unloaded → Dead.
 *
 * PreparingRebalance
 *   answers: JoinGroup → parked until every known member rejoined or the rebalance timeout fired;
 *            Heartbeat and SyncGroup → REBALANCE_IN_PROGRESS; LeaveGroup removes the member;
 *            OffsetCommit from the current (previous) generation allowed; OffsetFetch normally.
 *   moves on: join phase completes with members → CompletingRebalance (generation + 1, protocol voted);
 *             join phase completes with nobody → Empty (generation + 1); partition unloaded → Dead.
 *
 * CompletingRebalance
 *   answers: SyncGroup parked until the leader's assignment is committed; Heartbeat → NONE;
 *            OffsetCommit → REBALANCE_IN_PROGRESS; OffsetFetch normally.
 *   moves on: the leader's SyncGroup record (or a server-side assignment) committed → Stable;
 *             a join with new metadata, a leave, a session expiry, a static rejoin, a failed write or
 *             the sync timeout → PreparingRebalance; partition unloaded → Dead.
 *
 * Stable
 *   answers: Heartbeat → NONE; SyncGroup → the stored assignment; JoinGroup from a follower with the same
 *            metadata → the current generation; OffsetCommit from the current generation.
 *   moves on: the leader rejoins, a follower rejoins with new metadata, a new member, a leave, a session
 *             expiry, a subscribed topic grew → PreparingRebalance; partition unloaded → Dead.
 *
 * Dead
 *   the group was deleted, expired or unloaded; requests that still hold it get COORDINATOR_NOT_AVAILABLE.
 *   moves on: nowhere (Dead → Dead is allowed, as in Kafka).
 */
export type GroupState = GroupStateName;

export const VALID_PREVIOUS_STATES: Readonly<Record<GroupState, readonly GroupState[]>> = Object.freeze({
  Empty: ['PreparingRebalance'],
  PreparingRebalance: ['Stable', 'CompletingRebalance', 'Empty'],
  CompletingRebalance: ['PreparingRebalance'],
  Stable: ['CompletingRebalance'],
  Dead: ['Stable', 'PreparingRebalance', 'CompletingRebalance', 'Empty', 'Dead'],
});

export function isValidTransition(from: GroupState, to: GroupState): boolean {
  return VALID_PREVIOUS_STATES[to].includes(from);
}

/** Kafka's `canRebalance`: a rebalance can start from exactly the legal previous states of PreparingRebalance. */
export function canRebalanceFrom(state: GroupState): boolean {
  return isValidTransition(state, 'PreparingRebalance');
}
