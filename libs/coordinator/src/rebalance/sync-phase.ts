import type { SyncGroupResponse } from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import { groupMetadataRecord } from '../records/record-builders';
import { joinError, syncError } from '../responses/group-responses';
import { emptyAssignment, joinSuccess } from './join-result';
import type { GroupRegistry } from '../group/group-registry';
import type { CoordinatorResult, WriteOutcome } from '../runtime/coordinator-result';
import type { ShardEnv } from '../context/shard-env';
import { groupWriteError } from '../context/store-errors';
import type { OperationEffects } from '../runtime/operation-effects';
import { syncKey } from '../timers/shard-timers';
import type { MemberLiveness } from './member-liveness';
import type { MemberRemoval, RebalanceTrigger } from './rebalance-ports';

export interface SyncPhaseDeps {
  groups: GroupRegistry;
  /** Its timers, and the writes a phase completion starts: the step's effects, run by the shard. */
  effects: OperationEffects;
  liveness: MemberLiveness;
  removal: () => MemberRemoval;
  rebalance: () => RebalanceTrigger;
  env: Pick<ShardEnv, 'clock' | 'metrics'>;
}

/**
 * The sync phase (Kafka's `doSyncGroup` completion, DelayedSync and `storeGroup`): the generation's
 * assignment is written as a GroupMetadata record, and only once that record is committed are the
 * assignments handed out and the group made Stable.
 */
export class SyncPhase {
  constructor(private readonly deps: SyncPhaseDeps) {}

  private get now(): number {
    return this.deps.env.clock.now();
  }

  /** DelayedSync: members of the new generation must send SyncGroup within the rebalance timeout. */
  schedulePendingSync(group: ClassicGroup): void {
    const generationId = group.generationId;
    this.deps.effects.schedule(syncKey(group.groupId), group.rebalanceTimeoutMs, () =>
      this.onExpirePendingSync(group, generationId),
    );
  }

  removePendingSyncMember(group: ClassicGroup, memberId: string): void {
    group.removePendingSyncMember(memberId);
    if (group.hasReceivedSyncFromAllMembers) this.deps.effects.cancel(syncKey(group.groupId));
  }

  removeSyncExpiration(group: ClassicGroup): void {
    group.clearPendingSyncMembers();
    this.deps.effects.cancel(syncKey(group.groupId));
  }

  private onExpirePendingSync(group: ClassicGroup, generationId: number): void {
    if (!this.deps.groups.owns(group) || group.generationId !== generationId) return;
    if (!group.is('CompletingRebalance') && !group.is('Stable')) return;
    if (group.hasReceivedSyncFromAllMembers) return;
    const missing = group.allPendingSyncMembers();
    for (const memberId of missing) this.deps.removal().drop(group, memberId);
    this.deps
      .rebalance()
      .prepareRebalance(group, `Removing [${missing.join(', ')}] on pending sync request expiration`);
  }

  /**
   * The leader's SyncGroup: the result persists its assignment; its appendFuture completes every parked
   * SyncGroup (Kafka's `classicGroupSyncToClassicGroup` with `replayRecords = false`).
   */
  storeLeaderAssignment(
    group: ClassicGroup,
    leaderId: string,
    assignments: Map<string, unknown>,
  ): CoordinatorResult<never> {
    const generationId = group.generationId;
    return this.storeGroup(group, assignments, (error) => {
      // Another member may have joined meanwhile: act only if this generation is still being completed.
      if (!this.deps.groups.owns(group) || !group.is('CompletingRebalance') || group.generationId !== generationId)
        return;
      if (error !== ErrorCode.NONE) {
        this.resetAndPropagateAssignmentError(group, error);
        this.deps
          .rebalance()
          .maybePrepareRebalance(
            group,
            `Error ${errorName(error)} when storing group assignment during SyncGroup (member: ${leaderId})`,
          );
        return;
      }
      this.setAndPropagateAssignment(group, assignments);
      group.transitionTo('Stable', this.now);
      this.recordRebalanceCompleted(group);
    });
  }

  /** docs/protocol.md: persist the server-computed assignment; the parked JoinGroups (and any SyncGroups) get it on commit. */
  storeServerAssignment(group: ClassicGroup, assignments: Map<string, unknown>): void {
    const generationId = group.generationId;
    this.write(
      this.storeGroup(group, assignments, (error) => {
        if (!this.deps.groups.owns(group) || !group.is('CompletingRebalance') || group.generationId !== generationId)
          return;
        if (error !== ErrorCode.NONE) {
          for (const member of group.allMembers()) {
            if (
              group.parked.completeJoin(
                member,
                joinError(member.memberId, error, 'storing the server-side assignment failed'),
              )
            ) {
              this.deps.liveness.heartbeat(group, member);
            }
          }
          this.resetAndPropagateAssignmentError(group, error);
          this.deps
            .rebalance()
            .maybePrepareRebalance(group, `Error ${errorName(error)} when storing the server-side assignment`);
          return;
        }
        for (const member of group.allMembers())
          member.assignment = assignments.get(member.memberId) ?? emptyAssignment(group.protocolType);
        group.transitionTo('Stable', this.now);
        for (const member of group.allMembers()) {
          if (
            group.parked.completeJoin(
              member,
              joinSuccess(group, member, { includeMembers: group.isLeader(member.memberId) }),
            )
          ) {
            this.deps.liveness.heartbeat(group, member);
          }
        }
        this.propagateAssignment(group, ErrorCode.NONE);
        this.recordRebalanceCompleted(group);
      }),
    );
  }

  setAndPropagateAssignment(group: ClassicGroup, assignments: Map<string, unknown>): void {
    for (const member of group.allMembers())
      member.assignment = assignments.get(member.memberId) ?? emptyAssignment(group.protocolType);
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
          ? {
              errorCode: 0,
              protocolType: group.protocolType,
              protocolName: group.protocolName,
              assignment: member.assignment,
            }
          : syncError(error);
      if (group.parked.completeSync(member, response)) this.deps.liveness.heartbeat(group, member);
    }
  }

  /**
   * Kafka's `storeGroup`: the result that writes the group's GroupMetadata record with `assignments`;
   * its appendFuture gives `onDone` the client-facing error code.
   */
  storeGroup(
    group: ClassicGroup,
    assignments: ReadonlyMap<string, unknown>,
    onDone: (error: number) => void,
  ): CoordinatorResult<never> {
    const appendFuture = (outcome: WriteOutcome): void =>
      onDone(outcome.ok ? ErrorCode.NONE : groupWriteError(outcome.storeError));
    try {
      // Kafka's `replayRecords = false`: the group in memory is the handler's, so a timeout settles it too.
      return { records: [groupMetadataRecord(group, assignments, this.now)], appendFuture, replayRecords: false };
    } catch (error) {
      // Inputs are checked on arrival; should one slip through, the members are answered instead of left waiting.
      return { records: [], appendFuture, unwritable: `group ${group.groupId} cannot be encoded: ${String(error)}` };
    }
  }

  /** A write that a phase completion started: it goes out with the step's result (its `followUps`). */
  write(result: CoordinatorResult<never>): void {
    this.deps.effects.write(result);
  }

  /** The group reached Stable or Empty: close its rebalance in the history and report the duration. */
  recordRebalanceCompleted(group: ClassicGroup): void {
    const duration = group.history.completed(group.generationId, this.now, group.size, group.protocolName);
    if (duration !== undefined) this.deps.env.metrics.onRebalanceCompleted?.(group.groupId, duration);
  }
}
