import type { CohortError } from '../../errors/cohort-error';
import type { ResolvedRetry } from '../../runtime/backoff';
import type { Timers } from '../../runtime/timers';
import type { WakeSignal } from '../../runtime/wake-signal';
import type { ClusterMetadata } from '../../transport/cluster-metadata';
import type { PushMessage } from '../../transport/node-connection';
import { CoordinatorLink } from '../coordinator-link';
import type { CommittedOffset } from '../member-events';
import { MemberOffsets } from '../member-offsets';
import { OffsetCommitter, type CommitIdentity } from '../offset-committer';
import type { PartitionSet } from '../partition-set';
import type { ResolvedConsumerMemberOptions } from './consumer-member-options';

/** How long one ConsumerGroupHeartbeat, OffsetCommit or OffsetFetch may wait for its answer. */
export const CONSUMER_REQUEST_TIMEOUT_MS = 10_000;

/** What the consumer-protocol member's parts call back into it for. */
export interface ConsumerMemberHooks {
  push(message: PushMessage): void;
  /** Heartbeat as soon as possible; `full`: with every field (a new connection, a new coordinator, an error). */
  beatNow(full: boolean): void;
  /** The coordinator was heard from: an overdue heartbeat goes now. */
  poke(): void;
  report(error: CohortError): void;
  crash(error: CohortError): void;
  /** The member is gone for good: lookups stop. */
  isStopped(): boolean;
  /** The identity commits carry: member id, member epoch, instance id, and which membership. */
  identity(): CommitIdentity;
  /** In the group (an epoch above 0, not fenced, not left): commits and auto-commit may go out. */
  inGroup(): boolean;
  owned(): PartitionSet;
  committed(offsets: CommittedOffset[]): void;
}

export interface ConsumerMemberWiring {
  options: ResolvedConsumerMemberOptions;
  cluster: ClusterMetadata;
  timers: Timers;
  retry: ResolvedRetry;
  wake: WakeSignal;
}

/**
 * The consumer-protocol member's coordinator link and offsets, built from the same parts as the
 * classic member's: FindCoordinator and failover (CoordinatorLink), ordered commits (OffsetCommitter)
 * and auto-commit (MemberOffsets). What differs is the identity a commit carries — the member epoch,
 * which moves on within one membership, so a commit answered 113 STALE_MEMBER_EPOCH is sent again
 * with the epoch the next heartbeat brings, as Kafka's consumer does — and that a commit's 25 is left
 * to the heartbeat to act on.
 */
export function wireConsumerMember(
  w: ConsumerMemberWiring,
  hooks: ConsumerMemberHooks,
): { link: CoordinatorLink; offsets: MemberOffsets } {
  const { options, timers, retry } = w;
  const link = new CoordinatorLink(
    options.groupId,
    w.cluster,
    timers,
    retry,
    CONSUMER_REQUEST_TIMEOUT_MS,
    {
      push: (message) => hooks.push(message),
      reconnected: () => hooks.beatNow(true),
      activity: () => hooks.poke(),
      error: (error) => hooks.report(error),
      // Lookups go on while the member stops: its last commits and its leave need the coordinator.
      stopping: () => hooks.isStopped(),
    },
    w.wake,
  );
  const committer = new OffsetCommitter(options.groupId, link, timers, retry, CONSUMER_REQUEST_TIMEOUT_MS, {
    identity: () => hooks.identity(),
    // 25 or 22 on a commit: the heartbeat is the one to learn (and act on) a fencing.
    generationLost: () => hooks.beatNow(true),
    rebalanceInProgress: () => hooks.beatNow(false),
    fenced: (error) => hooks.crash(error),
    retrying: (error) => hooks.report(error),
    sameMembership: (now, began) =>
      now.memberId === began.memberId && now.incarnation === began.incarnation && now.generationId > 0,
    staleEpoch: () => hooks.beatNow(false),
    fetchMember: () => {
      if (!hooks.inGroup()) return null;
      const { memberId, generationId } = hooks.identity();
      return { memberId, memberEpoch: generationId };
    },
  });
  const offsets = new MemberOffsets({
    committer,
    timers,
    retryForMs: options.rebalanceTimeoutMs,
    autoCommitIntervalMs: options.autoCommitIntervalMs,
    owned: () => hooks.owned(),
    isStable: () => hooks.inGroup(),
    committed: (committed) => hooks.committed(committed),
    report: (error) => hooks.report(error),
  });
  return { link, offsets };
}
