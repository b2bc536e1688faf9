/**
 * Measures of an assignment that Kafka's tests use, shared by the conformance kit
 * and our property tests:
 * - fully balanced: member sizes differ by at most one;
 * - Kafka-balanced (AbstractStickyAssignorTest.verifyValidityAndBalance): two members whose sizes
 *   differ by more than one hold no common topic — per topic, its holders' sizes differ by at most one;
 * - strictly balanced (StickyAssignor javadoc): no member could take a partition of one of its topics
 *   from a member with two or more partitions more;
 * - movement: previously owned partitions that changed owner, and how many of those the new sizes
 *   did not force (a perfectly sticky assignor moves none beyond that).
 */
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription } from '../api/partition-assignor';

type Result = Record<string, MemberAssignment>;

function sizes(result: Result): Map<string, number> {
  return new Map(
    Object.entries(result).map(([id, a]) => [id, a.partitions.reduce((n, e) => n + e.partitions.length, 0)]),
  );
}

export function isFullyBalanced(result: Result): boolean {
  const values = [...sizes(result).values()];
  return values.length === 0 || Math.max(...values) - Math.min(...values) <= 1;
}

/** Topics on which holders' sizes differ by more than one (empty: Kafka-balanced). */
export function kafkaBalanceViolations(result: Result): string[] {
  const size = sizes(result);
  const range = new Map<string, { min: number; max: number; minBy: string; maxBy: string }>();
  for (const [memberId, assignment] of Object.entries(result)) {
    const n = size.get(memberId) ?? 0;
    for (const entry of assignment.partitions) {
      if (entry.partitions.length === 0) continue;
      const r = range.get(entry.topic);
      if (!r) range.set(entry.topic, { min: n, max: n, minBy: memberId, maxBy: memberId });
      else {
        if (n < r.min) Object.assign(r, { min: n, minBy: memberId });
        if (n > r.max) Object.assign(r, { max: n, maxBy: memberId });
      }
    }
  }
  return [...range]
    .filter(([, r]) => r.max - r.min > 1)
    .map(([topic, r]) => `'${r.minBy}' (${r.min}) and '${r.maxBy}' (${r.max}) both hold partitions of '${topic}'`);
}

/** Topics whose most loaded holder has two or more partitions more than their least loaded subscriber. */
export function strictBalanceViolations(
  cluster: ClusterView,
  members: readonly MemberSubscription[],
  result: Result,
): string[] {
  const size = sizes(result);
  const violations: string[] = [];
  const topics = new Set(members.flatMap((m) => m.subscription.topics));
  for (const topic of topics) {
    if ((cluster.partitionsPerTopic[topic] ?? 0) === 0) continue;
    let minSub = Infinity;
    let minBy = '';
    for (const m of members) {
      if (!m.subscription.topics.includes(topic)) continue;
      const n = size.get(m.memberId) ?? 0;
      if (n < minSub) [minSub, minBy] = [n, m.memberId];
    }
    for (const [memberId, assignment] of Object.entries(result)) {
      const n = size.get(memberId) ?? 0;
      if (n > minSub + 1 && assignment.partitions.some((e) => e.topic === topic && e.partitions.length > 0)) {
        violations.push(`'${minBy}' (${minSub}) could take a partition of '${topic}' from '${memberId}' (${n})`);
        break;
      }
    }
  }
  return violations;
}

export interface Movement {
  /** Owned partitions (still existing and still subscribed by their owner) given to someone else or to no one. */
  moved: number;
  /** The least that had to move given the new sizes: Σ max(0, kept-able − new size). */
  forced: number;
}

export function movement(cluster: ClusterView, members: readonly MemberSubscription[], result: Result): Movement {
  const claims = new Map<string, number>();
  const key = (topic: string, p: number): string => `${topic}\u0000${p}`;
  for (const m of members) {
    for (const e of m.subscription.ownedPartitions ?? [])
      for (const p of e.partitions) claims.set(key(e.topic, p), (claims.get(key(e.topic, p)) ?? 0) + 1);
  }
  let moved = 0;
  let forced = 0;
  for (const m of members) {
    const assigned = new Set(
      (result[m.memberId]?.partitions ?? []).flatMap((e) => e.partitions.map((p) => key(e.topic, p))),
    );
    let keepable = 0;
    for (const e of m.subscription.ownedPartitions ?? []) {
      if (!m.subscription.topics.includes(e.topic)) continue;
      for (const p of e.partitions) {
        if (p >= (cluster.partitionsPerTopic[e.topic] ?? 0) || claims.get(key(e.topic, p)) !== 1) continue;
        keepable++;
        if (!assigned.has(key(e.topic, p))) moved++;
      }
    }
    forced += Math.max(0, keepable - assigned.size);
  }
  return { moved, forced };
}

/**
 * For identical subscriptions: the fewest moves that reach a fully balanced assignment (the members
 * owning the most keep ceil(N/M), the others floor(N/M)).
 */
export function minimalMovesWhenUniform(cluster: ClusterView, members: readonly MemberSubscription[]): number {
  const topics = new Set(members[0]?.subscription.topics ?? []);
  let total = 0;
  for (const t of topics) total += cluster.partitionsPerTopic[t] ?? 0;
  const count = members.length;
  if (count === 0) return 0;
  const minQuota = Math.floor(total / count);
  let extra = total % count;
  const owned = members
    .map((m) =>
      (m.subscription.ownedPartitions ?? [])
        .filter((e) => topics.has(e.topic))
        .reduce((n, e) => n + e.partitions.filter((p) => p < (cluster.partitionsPerTopic[e.topic] ?? 0)).length, 0),
    )
    .sort((a, b) => b - a);
  let moves = 0;
  for (const n of owned) {
    const quota = extra > 0 ? minQuota + 1 : minQuota;
    if (extra > 0) extra--;
    moves += Math.max(0, n - quota);
  }
  return moves;
}
