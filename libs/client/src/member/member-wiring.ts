import { ErrorCode } from '@cohort/protocol';
import type { CohortError } from '../errors/cohort-error';
import type { ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import type { WakeSignal } from '../runtime/wake-signal';
import type { ClusterMetadata } from '../transport/cluster-metadata';
import type { PushMessage } from '../transport/node-connection';
import type { AssignorSet } from './assignor-set';
import { CoordinatorLink } from './coordinator-link';
import { GroupCalls } from './group-calls';
import { JoinRound } from './join-round';
import type { CommittedOffset } from './member-events';
import { MemberHeartbeat } from './member-heartbeat';
import { MemberOffsets } from './member-offsets';
import type { ResolvedMemberOptions } from './member-options';
import type { Membership } from './membership';
import { OffsetCommitter } from './offset-committer';
import type { PartitionSet } from './partition-set';
import { SessionFence } from './session-fence';

/** What the member's parts call back into the member for. */
export interface MemberHooks {
  push(message: PushMessage): void;
  report(error: CohortError): void;
  isStopping(): boolean;
  isStable(): boolean;
  requestRejoin(reason: string): void;
  /** The membership is gone (Kafka's resetStateAndGeneration). */
  resetGeneration(reason: string, resetMemberId: boolean): void;
  /** A fatal answer (FENCED_INSTANCE_ID). */
  crash(error: CohortError): void;
  /** The session fence fell. */
  sessionExpired(): void;
  owned(): PartitionSet;
  committed(offsets: CommittedOffset[]): void;
}

export interface MemberParts {
  fence: SessionFence;
  link: CoordinatorLink;
  calls: GroupCalls;
  heartbeat: MemberHeartbeat;
  round: JoinRound;
  offsets: MemberOffsets;
}

export interface MemberWiring {
  options: ResolvedMemberOptions;
  cluster: ClusterMetadata;
  timers: Timers;
  retry: ResolvedRetry;
  membership: Membership;
  assignors: AssignorSet;
  wake: WakeSignal;
}

/**
 * Builds a member's parts and connects them to each other and to the member: the coordinator link, the
 * session fence and the heartbeat, which any group member needs, and the classic protocol's join
 * round and offsets. Kept apart from CohortMember so that the member itself reads as its state machine.
 */
export function wireMember(w: MemberWiring, hooks: MemberHooks): MemberParts {
  const { options, timers, retry, membership } = w;
  const requestTimeoutMs = Math.max(options.sessionTimeoutMs, 5000);
  const fence = new SessionFence(timers, options.sessionTimeoutMs, () => hooks.sessionExpired());
  const link = new CoordinatorLink(
    options.groupId,
    w.cluster,
    timers,
    retry,
    requestTimeoutMs,
    {
      push: (message) => hooks.push(message),
      reconnected: () => heartbeat.now(),
      activity: () => heartbeat.poke(),
      error: (error) => hooks.report(error),
      stopping: () => hooks.isStopping(),
    },
    w.wake,
  );
  const calls = new GroupCalls(options, w.assignors, link);
  const heartbeat: MemberHeartbeat = new MemberHeartbeat(
    timers,
    retry,
    options.heartbeatIntervalMs,
    options.sessionTimeoutMs,
    membership,
    calls,
    link,
    fence,
    {
      isStable: () => hooks.isStable(),
      rebalancing: () => hooks.requestRejoin('group is already rebalancing'),
      reset: (reason, resetMemberId) => hooks.resetGeneration(reason, resetMemberId),
      fenced: (error) => hooks.crash(error),
      report: (error) => hooks.report(error),
    },
  );
  const round = new JoinRound(membership, calls, w.assignors, fence, {
    resetGeneration: (reason, resetMemberId) => hooks.resetGeneration(reason, resetMemberId),
    requestRejoin: (reason) => hooks.requestRejoin(reason),
  });
  const committer = new OffsetCommitter(options.groupId, link, timers, retry, requestTimeoutMs, {
    // Asked before every attempt: a commit never goes out past the session fence.
    identity: () => {
      fence.check();
      return membership.identity();
    },
    generationLost: (identity, error) => {
      if (membership.isCurrent(identity))
        hooks.resetGeneration(`OffsetCommit answered ${error.name}`, error.code === ErrorCode.UNKNOWN_MEMBER_ID);
    },
    rebalanceInProgress: () => hooks.requestRejoin('OffsetCommit answered REBALANCE_IN_PROGRESS'),
    fenced: (error) => hooks.crash(error),
    retrying: (error) => hooks.report(error),
  });
  const offsets = new MemberOffsets({
    committer,
    timers,
    retryForMs: options.rebalanceTimeoutMs,
    autoCommitIntervalMs: options.autoCommitIntervalMs,
    owned: () => hooks.owned(),
    // Auto-commit asks before each round: past the session fence (a late timer) it commits nothing.
    isStable: () => !fence.check() && hooks.isStable(),
    committed: (committed) => hooks.committed(committed),
    report: (error) => hooks.report(error),
  });
  return { fence, link, calls, heartbeat, round, offsets };
}
