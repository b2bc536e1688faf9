import type { JoinGroupResponse, SyncGroupResponse } from '@cohort/protocol';
import type { JoinCallback, MemberMetadata, SyncCallback } from './member-metadata';

/**
 * The JoinGroup and SyncGroup replies of one group that wait for its rebalance (Kafka's
 * `awaitingJoinFuture` / `awaitingSyncFuture` of each member, held here instead of on the members):
 * one place to park a reply, complete it, and fail them all. Whoever ends a phase — a request, a timer,
 * a write's completion, the unload — answers through `completeJoin` / `completeSync`, which answer a
 * reply at most once.
 */
export class ParkedReplies {
  /** Both made on the first reply parked: most groups on a big node never rebalance, and an empty Map costs ~180 bytes. */
  private joins: Map<MemberMetadata, JoinCallback> | undefined;
  private syncs: Map<MemberMetadata, SyncCallback> | undefined;

  /** How many members of the group have a JoinGroup parked. */
  get joinCount(): number {
    return this.joins?.size ?? 0;
  }

  hasJoin(member: MemberMetadata): boolean {
    return this.joins?.has(member) ?? false;
  }

  hasSync(member: MemberMetadata): boolean {
    return this.syncs?.has(member) ?? false;
  }

  /** Parks (or, with null, drops unanswered) the member's JoinGroup reply, replacing any earlier one. */
  parkJoin(member: MemberMetadata, callback: JoinCallback | null): void {
    if (callback === null) this.joins?.delete(member);
    else (this.joins ??= new Map()).set(member, callback);
  }

  /** Parks the member's SyncGroup reply; an earlier one of the same member is answered `superseded`. */
  parkSync(member: MemberMetadata, callback: SyncCallback, superseded: () => SyncGroupResponse): void {
    if (this.hasSync(member)) this.completeSync(member, superseded());
    (this.syncs ??= new Map()).set(member, callback);
  }

  /** Takes the member's parked JoinGroup reply out unanswered, for a caller that answers it itself. */
  takeJoin(member: MemberMetadata): JoinCallback | undefined {
    const callback = this.joins?.get(member);
    this.joins?.delete(member);
    return callback;
  }

  /** Answers the member's parked JoinGroup, if any. */
  completeJoin(member: MemberMetadata, response: JoinGroupResponse): boolean {
    const callback = this.takeJoin(member);
    if (!callback) return false;
    callback(response);
    return true;
  }

  /** Answers the member's parked SyncGroup, if any. */
  completeSync(member: MemberMetadata, response: SyncGroupResponse): boolean {
    const callback = this.syncs?.get(member);
    if (!callback) return false;
    this.syncs!.delete(member);
    callback(response);
    return true;
  }

  /** The member left the group: whatever it had parked is dropped with it. */
  forget(member: MemberMetadata): void {
    this.joins?.delete(member);
    this.syncs?.delete(member);
  }

  /** Answers every parked reply, each member's JoinGroup before its SyncGroup, in `members`' order. */
  failAll(
    members: Iterable<MemberMetadata>,
    join: (member: MemberMetadata) => JoinGroupResponse,
    sync: (member: MemberMetadata) => SyncGroupResponse,
  ): void {
    for (const member of members) {
      this.completeJoin(member, join(member));
      this.completeSync(member, sync(member));
    }
  }
}
