import type { SyncGroupResponse } from '@cohort/protocol';
import type { LogRecord } from '@cohort/replication';
import { ErrorCode, errorName } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import { groupMetadataRecord } from '../records/record-builders';
import { joinError, syncError } from '../responses/group-responses';
import { emptyAssignment, joinSuccess } from '../responses/join-result';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import type { WriteResult } from '../shard/shard-writer';
import { groupWriteError } from '../shard/store-errors';
import { syncKey } from '../timers/shard-timers';

/**
 * The sync phase (Kafka's `doSyncGroup` completion, DelayedSync and `storeGroup`): the generation's
 * assignment is written as a GroupMetadata record, and only once that record is committed are the
 * assignments handed out and the group made Stable.
 */
export class SyncPhase {
  constructor(private readonly shard: CoordinatorShard) {}

  /** DelayedSync: members of the new generation must send SyncGroup within the rebalance timeout. */
  schedulePendingSync(group: ClassicGroup): void {
    const generationId = group.generationId;
    this.shard.timers.set(syncKey(group.groupId), group.rebalanceTimeoutMs, () => this.onExpirePendingSync(group, generationId));
  }

  removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.removePendingSyncMember(memberId);
    if (group.hasReceivedSyncFromAllMembers) this.shard.timers.cancel(syncKey(group.groupId));
  }

  removeSyncExpiration(group: ClassicGroup): void {
    group.clearPendingSyncMembers();
    this.shard.timers.cancel(syncKey(group.groupId));
  }

  private onExpirePendingSync(group: ClassicGroup, generationId: number): void {
    if (!this.shard.owns(group) || group.generationId !== generationId) return;
    if (!group.is('CompletingRebalance') && !group.is('Stable')) return;
    if (group.hasReceivedSyncFromAllMembers) return;
    const missing = group.allPendingSyncMembers();
    for (const memberId of missing) this.shard.membership.drop(group, memberId);
    this.shard.joins.prepareRebalance(group, `Removing [${missing.join(', ')}] on pending sync request expiration`);
  }

  /** The leader's SyncGroup: persist its assignment, then complete every parked SyncGroup. */
  storeLeaderAssignment(group: ClassicGroup, leaderId: string, assignments: Map<string, unknown>): void {
    const generationId = group.generationId;
    this.storeGroup(group, assignments, (error) => {
      // Another member may have joined meanwhile: act only if this generation is still being completed.
      if (!this.shard.owns(group) || !group.is('CompletingRebalance') || group.generationId !== generationId) return;
      if (error !== ErrorCode.NONE) {
        this.resetAndPropagateAssignmentError(group, error);
        this.shard.joins.maybePrepareRebalance(group, `Error ${errorName(error)} when storing group assignment during SyncGroup (member: ${leaderId})`);
        return;
      }
      this.setAndPropagateAssignment(group, assignments);
      group.transitionTo('Stable', this.shard.now);
      this.recordRebalanceCompleted(group);
    });
  }

  /** SPEC §3: persist the server-computed assignment; the parked JoinGroups (and any SyncGroups) get it on commit. */
  storeServerAssignment(group: ClassicGroup, assignments: Map<string, unknown>): void {
    const generationId = group.generationId;
    this.storeGroup(group, assignments, (error) => {
      if (!this.shard.owns(group) || !group.is('CompletingRebalance') || group.generationId !== generationId) return;
      if (error !== ErrorCode.NONE) {
        for (const member of group.allMembers()) {
          if (group.maybeInvokeJoinCallback(member, joinError(member.memberId, error, 'storing the server-side assignment failed'))) {
            this.shard.liveness.heartbeat(group, member);
          }
        }
        this.resetAndPropagateAssignmentError(group, error);
        this.shard.joins.maybePrepareRebalance(group, `Error ${errorName(error)} when storing the server-side assignment`);
        return;
      }
      for (const member of group.allMembers()) member.assignment = assignments.get(member.memberId) ?? emptyAssignment(group.protocolType);
      group.transitionTo('Stable', this.shard.now);
      for (const member of group.allMembers()) {
        if (group.maybeInvokeJoinCallback(member, joinSuccess(group, member, { includeMembers: group.isLeader(member.memberId) }))) {
          this.shard.liveness.heartbeat(group, member);
        }
      }
      this.propagateAssignment(group, ErrorCode.NONE);
      this.recordRebalanceCompleted(group);
    });
  }

  setAndPropagateAssignment(group: ClassicGroup, assignments: Map<string, unknown>): void {
    for (const member of group.allMembers()) member.assignment = assignments.get(member.memberId) ?? emptyAssignment(group.protocolType);
    this.propagateAssignment(group, ErrorCode.NONE);
  }

  resetAndPropagateAssignmentError(group: ClassicGroup, error: number): void {
    for (const member of group.allMembers()) member.assignment = null;
    this.propagateAssignment(group, error);
  }

  /** Answers every parked SyncGroup; a member that gets its assignment starts a fresh session. */
  private propagateAssignment(group: ClassicGroup, error: number): void {
    for (const member of group.allMembers()) {
      const response: SyncGroupResponse =
        error === ErrorCode.NONE
          ? { errorCode: 0, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment }
          : syncError(error);
      if (group.maybeInvokeSyncCallback(member, response)) this.shard.liveness.heartbeat(group, member);
    }
  }

  /** Appends the group's GroupMetadata record with `assignments`; `onDone` gets the client-facing error code. */
  storeGroup(group: ClassicGroup, assignments: ReadonlyMap<string, unknown>, onDone: (error: number) => void): void {
    const done = (result: WriteResult): void => onDone(result.ok ? ErrorCode.NONE : groupWriteError(result.storeError));
    let record: LogRecord;
    try {
      record = groupMetadataRecord(group, assignments, this.shard.now);
    } catch (error) {
      // Inputs are checked on arrival; should one slip through, the members are answered instead of left waiting.
      this.shard.writer.failBeforeAppend(ErrorCode.UNKNOWN_SERVER_ERROR, `group ${group.groupId} cannot be encoded: ${String(error)}`, done);
      return;
    }
    this.shard.writer.write([record], done);
  }

  /** The group reached Stable or Empty: close its rebalance in the history and report the duration. */
  recordRebalanceCompleted(group: ClassicGroup): void {
    const duration = group.history.completed(group.generationId, this.shard.now, group.size, group.protocolName);
    if (duration !== undefined) this.shard.env.metrics.onRebalanceCompleted?.(group.groupId, duration);
  }
}
