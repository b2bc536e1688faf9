import { ErrorCode } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import { joinError } from '../responses/group-responses';
import { joinSuccess } from './join-result';
import type { GroupRegistry } from '../group/group-registry';
import type { ShardEnv } from '../context/shard-env';
import type { OperationEffects } from '../runtime/operation-effects';
import { joinKey } from '../timers/shard-timers';
import type { MemberLiveness } from './member-liveness';
import type { Membership } from './membership';
import type { RebalanceTrigger } from './rebalance-ports';
import type { SyncPhase } from './sync-phase';

export interface JoinPhaseDeps {
  partition: number;
  groups: GroupRegistry;
  effects: OperationEffects;
  liveness: MemberLiveness;
  membership: Membership;
  syncs: SyncPhase;
  env: ShardEnv;
}
import { computeServerAssignment, agreedServerAssignor } from './server-assignment';

/**
 * The join phase of a rebalance (Kafka's `prepareRebalance`, DelayedJoin, InitialDelayedJoin and
 * `onCompleteJoin`): PreparingRebalance collects JoinGroups until every known member rejoined (or the
 * group's rebalance timeout fires), then the next generation starts.
 */
export class JoinPhase implements RebalanceTrigger {
  constructor(private readonly deps: JoinPhaseDeps) {}

  private get now(): number {
    return this.deps.env.clock.now();
  }

  maybePrepareRebalance(group: ClassicGroup, reason: string): void {
    if (group.canRebalance) this.prepareRebalance(group, reason);
  }

  prepareRebalance(group: ClassicGroup, reason: string): void {
    const { syncs, env } = this.deps;
    // Members waiting for the previous generation's assignment must rejoin instead.
    if (group.is('CompletingRebalance')) syncs.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    syncs.removeSyncExpiration(group);
    const fromEmpty = group.is('Empty');
    group.history.started(group.generationId, reason, this.now, group.size);
    group.transitionTo('PreparingRebalance', this.now);
    env.logger.info(
      `preparing to rebalance group ${group.groupId} with old generation ${group.generationId} (__consumer_offsets-${this.deps.partition}) (reason: ${reason})`,
    );
    env.metrics.onRebalanceStarted?.(group.groupId, reason);
    this.pushRebalance(group, reason);
    if (fromEmpty) {
      // Only members that join during this delay extend it (a flag left from an earlier rebalance must not).
      group.newMemberAdded = false;
      const delay = env.config.groupInitialRebalanceDelayMs;
      this.armInitialJoin(group, delay, Math.max(group.rebalanceTimeoutMs - delay, 0));
    } else {
      this.armJoin(group);
      this.checkJoin(group);
    }
  }

  /** Kafka's `checkAndComplete(GroupJoinKey)`: a regular DelayedJoin completes once everyone has rejoined. */
  checkJoin(group: ClassicGroup): void {
    if (group.is('PreparingRebalance') && group.pendingJoin === 'regular' && group.hasAllMembersJoined) {
      this.completeJoin(group);
    }
  }

  /** DelayedJoin: wait up to the group's rebalance timeout for the members to rejoin. */
  private armJoin(group: ClassicGroup): void {
    group.pendingJoin = 'regular';
    this.deps.effects.schedule(joinKey(group.groupId), group.rebalanceTimeoutMs, () => {
      if (this.deps.groups.owns(group) && group.pendingJoin === 'regular') this.completeJoin(group);
    });
  }

  /**
   * InitialDelayedJoin (KIP-134): a group leaving Empty waits the full initial delay, and each member
   * that joins a brand-new group meanwhile extends the wait by up to that delay, within the rebalance timeout.
   */
  private armInitialJoin(group: ClassicGroup, delayMs: number, remainingMs: number): void {
    group.pendingJoin = 'initial';
    this.deps.effects.schedule(joinKey(group.groupId), delayMs, () => {
      if (!this.deps.groups.owns(group) || group.pendingJoin !== 'initial') return;
      if (group.newMemberAdded && remainingMs !== 0) {
        group.newMemberAdded = false;
        const delay = Math.min(this.deps.env.config.groupInitialRebalanceDelayMs, remainingMs);
        this.armInitialJoin(group, delay, Math.max(remainingMs - delayMs, 0));
      } else {
        this.completeJoin(group);
      }
    });
  }

  private completeJoin(group: ClassicGroup): void {
    this.deps.effects.cancel(joinKey(group.groupId));
    group.pendingJoin = null;
    this.onCompleteJoin(group);
  }

  /** Kafka's `onCompleteJoin`. */
  private onCompleteJoin(group: ClassicGroup): void {
    const { liveness, syncs, env } = this.deps;
    // Dynamic members that did not rejoin are gone; static members stay until their session expires.
    for (const member of group.notYetRejoinedMembers()) {
      if (!member.isStatic) this.deps.membership.drop(group, member.memberId);
    }
    if (!group.maybeElectNewJoinedLeader() && group.size > 0) {
      // Only static members remain and none rejoined: wait another rebalance timeout for their sessions to expire.
      env.logger.error(`group ${group.groupId} could not complete rebalance because no members rejoined`);
      this.armJoin(group);
      return;
    }
    const assignorName = agreedServerAssignor(group, env.assignors);
    if (assignorName !== null && group.size > 0) {
      this.completeWithServerAssignment(group, assignorName);
      return;
    }
    group.serverAssignor = null;
    group.initNextGeneration(this.now);
    if (group.is('Empty')) {
      env.logger.info(`group ${group.groupId} with generation ${group.generationId} is now empty`);
      syncs.recordRebalanceCompleted(group);
      // Nobody waits on this write; if it is lost the previous generation comes back on failover and expires.
      syncs.write(
        syncs.storeGroup(group, new Map(), (error) => {
          if (error !== ErrorCode.NONE)
            env.logger.warn(`failed to write empty metadata for group ${group.groupId}: error ${error}`);
        }),
      );
      return;
    }
    env.logger.info(`stabilized group ${group.groupId} generation ${group.generationId} with ${group.size} members`);
    for (const member of group.allMembers()) {
      group.parked.completeJoin(
        member,
        joinSuccess(group, member, { includeMembers: group.isLeader(member.memberId) }),
      );
      liveness.heartbeat(group, member);
      member.isNew = false;
      group.addPendingSyncMember(member.memberId);
    }
    syncs.schedulePendingSync(group);
  }

  /**
   * docs/protocol.md: the server computes the assignment when the join phase ends. The JoinGroups stay parked
   * until the GroupMetadata record holding it commits; if the assignor fails, the generation does not
   * start: the members get the error and the group keeps preparing (members that do not rejoin within
   * the rebalance timeout are removed as usual).
   */
  private completeWithServerAssignment(group: ClassicGroup, assignorName: string): void {
    const { liveness, syncs, env } = this.deps;
    const protocol = group.selectProtocol();
    const started = this.now;
    const result = computeServerAssignment(env.assignors.get(assignorName), assignorName, group, protocol, env.topics);
    env.metrics.onServerAssignment?.(assignorName, result.ok ? 'ok' : 'failed', this.now - started);
    if (!result.ok) {
      env.logger.warn(`server-side assignment of group ${group.groupId} failed: ${result.message}`);
      for (const member of group.allMembers()) {
        if (
          !group.parked.completeJoin(member, joinError(member.memberId, ErrorCode.UNKNOWN_SERVER_ERROR, result.message))
        )
          continue;
        // It is no longer parked, so it must heartbeat (and hear REBALANCE_IN_PROGRESS) like any member.
        member.isNew = false;
        liveness.heartbeat(group, member);
      }
      this.armJoin(group);
      return;
    }
    group.serverAssignor = assignorName;
    group.initNextGeneration(this.now);
    for (const member of group.allMembers()) {
      liveness.heartbeat(group, member);
      member.isNew = false;
    }
    syncs.storeServerAssignment(group, result.assignments);
  }

  /**
   * docs/protocol.md push: members learn at once that they must rejoin, instead of at their next heartbeat. Only
   * members without a JoinGroup parked for this phase are told (it would tell the others nothing, and a
   * client that rejoins on every push would supersede its own parked JoinGroup, e.g. the member whose
   * join started the rebalance). Sent once, when preparing starts; nothing is pushed when the phase ends.
   */
  private pushRebalance(group: ClassicGroup, reason: string): void {
    const connectionIds = [
      ...new Set(group.notYetRejoinedMembers().flatMap((m) => (m.connectionId === undefined ? [] : [m.connectionId]))),
    ];
    if (connectionIds.length === 0) return;
    try {
      this.deps.env.push.rebalanceInProgress(connectionIds, {
        groupId: group.groupId,
        generationId: group.generationId,
        reason,
      });
    } catch (error) {
      this.deps.env.logger.warn(`RebalanceInProgress push for group ${group.groupId} failed: ${String(error)}`);
    }
  }
}
