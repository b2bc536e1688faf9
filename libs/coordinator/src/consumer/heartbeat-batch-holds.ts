import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupMember } from './consumer-group-member';
import type { BatchAnswer } from './heartbeat-batch.types';
import { MemberState } from './member-state';

/**
 * A held answer lasts at most this share of the shorter of the heartbeat interval and the member's
 * rebalance timeout (1 s with the 5 s default interval): well inside the client's request timeout and
 * the member's session, and short enough that a member whose partitions' owner is gone (its session
 * not yet over) starts on what it has about as soon as its push would have come.
 */
const HOLD_SHARE = 5;

/**
 * And never longer than this, whatever the interval an operator sets: an answer held for a fifth of a
 * 60 s interval would outlast the SDK's 10 s request timeout, and the client would give up on it.
 */
export const HOLD_MAX_MS = 1_000;

/** One heartbeat's answer held back until the partitions its member waits for are released. */
export interface Held<P> {
  groupId: string;
  memberId: string;
  /** The member as the group held it once the answer was computed: a change by anything else ends the hold. */
  member: ConsumerGroupMember;
  /** The group's target epoch then: a new target ends the hold (the member is reconciled towards it). */
  targetEpoch: number;
  answer: BatchAnswer;
  /** What the batch needs to reconcile the member again. */
  parked: P;
  /** The partitions of its target another member owned, as topics and partitions side by side; `seen` of them are free since. */
  topics: string[];
  partitions: number[];
  seen: number;
  until: number;
  /** A later request of the member arrived: it must be answered now, so that request runs after it. */
  woken: boolean;
}

/**
 * The answers a batch holds back (`HeartbeatBatch`). While a burst of members joins, each joiner's target
 * is mostly held by members that must first revoke it (two round trips each). A joiner reconciled before
 * those partitions are released used to be answered at once with its epoch and without them, pushed
 * (HeartbeatNow) once they were released, and heard a third time. Its answer is now held instead, for a
 * bounded time (HOLD_SHARE), and once the partitions are free the member is reconciled again with the
 * same request and answered with them: what its next heartbeat would have brought it, one round trip
 * and one push sooner. Only a member left waiting for partitions other members own (Kafka's
 * UNRELEASED_PARTITIONS) is held, never one that must revoke (others may wait for it). The first
 * answer's records are written as before, so its member is the only owner of what it was given; the
 * second answer waits for its own records like any other. A group formed by 10,000 members whose first
 * member, alone with every partition, was slow to revoke (`npm run bench -- consumer-groups 10000
 * forming 150`) took 3.0 heartbeats per member and about 5.2 s with every joiner pushed, 2.0 and 3.6 s
 * with their answers held.
 */
export class HeldAnswers<P> {
  private readonly held = new Map<string, Held<P>>();
  /** The held answers of static members by `key(groupId, instanceId)`: a request of the instance wakes them. */
  private readonly byInstance = new Map<string, Held<P>>();

  /** `enabled`: answers may be held (the batch knows the time), until `end`. */
  constructor(private enabled: boolean) {}

  get size(): number {
    return this.held.size;
  }

  /**
   * Holds `answer` if `member` (as the group holds it now) waits for partitions of its target that
   * others own; false when it does not (the answer goes now).
   */
  hold(group: ConsumerGroup, member: ConsumerGroupMember, answer: BatchAnswer, parked: P, now: number): boolean {
    if (!this.enabled || member.state !== MemberState.UNRELEASED_PARTITIONS || answer.response.errorCode !== 0)
      return false;
    const topics: string[] = [];
    const partitions: number[] = [];
    for (const [topic, targeted] of group.targetAssignmentFor(member.memberId, member.instanceId)) {
      const assigned = member.assignedPartitions.get(topic);
      for (const p of targeted) {
        if (assigned?.has(p) !== true && group.currentPartitionEpoch(topic, p) !== -1) {
          topics.push(topic);
          partitions.push(p);
        }
      }
    }
    if (topics.length === 0) return false;
    const bound = Math.min(
      HOLD_MAX_MS,
      Math.min(answer.response.heartbeatIntervalMs, member.rebalanceTimeoutMs) / HOLD_SHARE,
    );
    const { groupId } = group;
    const { memberId, instanceId } = member;
    const held: Held<P> = {
      groupId,
      memberId,
      member,
      targetEpoch: group.assignmentEpoch,
      answer,
      parked,
      topics,
      partitions,
      seen: 0,
      until: now + bound,
      woken: false,
    };
    this.held.set(key(groupId, memberId), held);
    if (instanceId) this.byInstance.set(key(groupId, instanceId), held);
    return true;
  }

  /** A request of this member (or of its instance) arrived: its held answer goes at the next step. */
  wake(groupId: string, memberId: string, instanceId?: string | null): void {
    if (this.held.size === 0) return;
    const held = this.held.get(key(groupId, memberId));
    if (held) held.woken = true;
    const ofInstance = instanceId ? this.byInstance.get(key(groupId, instanceId)) : undefined;
    if (ofInstance) ofInstance.woken = true;
  }

  /** No answer is held from now on, and those held go at the next step (a read must see the batch ended). */
  end(): void {
    this.enabled = false;
    for (const held of this.held.values()) held.woken = true;
  }

  /**
   * The held answers that must go now, taken out: their partitions are free, their time is up, a request
   * of the member arrived, or the group moved on (a new target, the member changed or gone).
   */
  due(now: number, groupOf: (groupId: string) => ConsumerGroup | undefined): Held<P>[] {
    const due: Held<P>[] = [];
    for (const [k, held] of this.held) {
      if (!this.goesNow(held, now, groupOf(held.groupId))) continue;
      this.held.delete(k);
      const { instanceId } = held.member;
      if (instanceId && this.byInstance.get(key(held.groupId, instanceId)) === held)
        this.byInstance.delete(key(held.groupId, instanceId));
      due.push(held);
    }
    return due;
  }

  /** Every held answer, taken out (a read must see the batch ended, or the shard stopped leading). */
  takeAll(): Held<P>[] {
    const all = [...this.held.values()];
    this.held.clear();
    this.byInstance.clear();
    return all;
  }

  /** The earliest time a held answer must go, if any is held. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const held of this.held.values()) if (next === undefined || held.until < next) next = held.until;
    return next;
  }

  private goesNow(held: Held<P>, now: number, group: ConsumerGroup | undefined): boolean {
    if (held.woken || now >= held.until || !group) return true;
    if (group.member(held.memberId) !== held.member || group.assignmentEpoch !== held.targetEpoch) return true;
    const { topics, partitions } = held;
    while (held.seen < topics.length && group.currentPartitionEpoch(topics[held.seen], partitions[held.seen]) === -1)
      held.seen++;
    return held.seen === topics.length;
  }
}

const key = (groupId: string, memberId: string): string => `${groupId}\u0000${memberId}`;
