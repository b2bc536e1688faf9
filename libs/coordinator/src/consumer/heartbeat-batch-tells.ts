import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupMember } from './consumer-group-member';
import { MemberKeys } from './member-keys';
import { MemberState } from './member-state';
import type { TopicPartitions } from './topic-partitions';

/**
 * Who a batch of heartbeats must tell to heartbeat now (SPEC's HeartbeatNow), and which of them can be
 * told before the batch ends. A member is due a push when the batch's target changed its target, or
 * when a partition it waits for was released; a member still waiting for its answer in the batch (its
 * heartbeat parked) gets its target in that answer instead, so it is pushed only if still due once the
 * batch ends. The members due a push and not waiting are kept apart as they change (`ready`), so a
 * step hands them out without scanning every member due a push (a group forming from empty: all of
 * them, at each of the burst's steps).
 */
export class BatchTells {
  /** groupId → the members due a push (SPEC's HeartbeatNow) once the batch's writes commit. */
  readonly due = new Map<string, Set<string>>();
  /** groupId → the members of `due` not waiting for an answer of the batch: always `due` less `awaiting`. */
  private ready = new Map<string, Set<string>>();
  /** groupId → the member ids and `\u0000instance` ids parked and not answered yet. */
  private readonly awaiting = new MemberKeys();

  /** The member is due a push. */
  add(groupId: string, memberId: string): void {
    setOf(this.due, groupId).add(memberId);
    if (!this.awaiting.has(groupId, memberId)) setOf(this.ready, groupId).add(memberId);
  }

  /** The member's answer hands it its target: it is no longer due a push. */
  answered(groupId: string, memberId: string): void {
    removeFrom(this.due, groupId, memberId);
    removeFrom(this.ready, groupId, memberId);
  }

  /** A heartbeat known by `keys` (its member id, and `\u0000instance` for a static member) now waits for its answer. */
  park(groupId: string, keys: readonly string[]): void {
    this.awaiting.add(groupId, keys);
    for (const key of keys) removeFrom(this.ready, groupId, key);
  }

  /** The heartbeat known by `keys` is answered (or failed): a push it is still due can go. */
  unpark(groupId: string, keys: readonly string[]): void {
    if (!this.awaiting.remove(groupId, keys)) return;
    const due = this.due.get(groupId);
    for (const key of keys) if (due?.has(key)) setOf(this.ready, groupId).add(key);
  }

  /** Whether a heartbeat of this member (or of its instance) is still waiting for its answer. */
  awaits(groupId: string, memberId: string, instanceId?: string | null): boolean {
    return this.awaiting.has(groupId, memberId, instanceId);
  }

  /** The members due a push and not waiting for an answer, taken out of `due`. */
  take(): Map<string, Set<string>> {
    const taken = this.ready;
    this.ready = new Map();
    for (const [groupId, members] of taken) for (const memberId of members) removeFrom(this.due, groupId, memberId);
    return taken;
  }

  /**
   * The members waiting for a partition `before` held and `after` no longer does (SPEC's HeartbeatNow
   * on a release): the member whose target holds the partition, if it waits for unreleased partitions.
   */
  released(group: ConsumerGroup, before: ConsumerGroupMember, after: ConsumerGroupMember | undefined): void {
    if (after === before) return; // a steady member released nothing
    // Nor did one that only moved to another epoch, holding the very same partitions.
    if (
      after !== undefined &&
      after.assignedPartitions === before.assignedPartitions &&
      after.partitionsPendingRevocation === before.partitionsPendingRevocation
    )
      return;
    const keeps = (topic: string, p: number): boolean =>
      after !== undefined &&
      (after.assignedPartitions.get(topic)?.has(p) === true ||
        after.partitionsPendingRevocation.get(topic)?.has(p) === true);
    const released = (held: TopicPartitions): void => {
      for (const [topic, partitions] of held) {
        const holders = group.invertedTargetAssignment.get(topic);
        if (!holders) continue;
        for (const p of partitions) {
          const holder = holders.get(p);
          if (holder === undefined || holder === before.memberId || keeps(topic, p)) continue;
          if (group.member(holder)?.state === MemberState.UNRELEASED_PARTITIONS) this.add(group.groupId, holder);
        }
      }
    };
    released(before.assignedPartitions);
    released(before.partitionsPendingRevocation);
  }
}

function setOf(map: Map<string, Set<string>>, groupId: string): Set<string> {
  let set = map.get(groupId);
  if (!set) map.set(groupId, (set = new Set()));
  return set;
}

function removeFrom(map: Map<string, Set<string>>, groupId: string, key: string): void {
  const set = map.get(groupId);
  if (!set?.delete(key)) return;
  if (set.size === 0) map.delete(groupId);
}
