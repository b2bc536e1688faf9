/**
 * Where a member stands in its reconciliation (Kafka's `modern/MemberState`, with its record values):
 * - STABLE: it holds its whole target at the target epoch, or waits for a newer one;
 * - UNREVOKED_PARTITIONS: it must give partitions up before anything new is assigned;
 * - UNRELEASED_PARTITIONS: part of its target is still owned by another member;
 * - UNKNOWN: a state a newer coordinator wrote; the member is fenced unless it owns nothing.
 */
export const MemberState = {
  STABLE: 0,
  UNREVOKED_PARTITIONS: 1,
  UNRELEASED_PARTITIONS: 2,
  UNKNOWN: 127,
} as const;

export type MemberState = (typeof MemberState)[keyof typeof MemberState];

const KNOWN = new Set<number>(Object.values(MemberState));

/** Kafka's `MemberState.fromValue`: a value this coordinator does not know reads as UNKNOWN. */
export function memberStateFromValue(value: number): MemberState {
  return KNOWN.has(value) ? (value as MemberState) : MemberState.UNKNOWN;
}
