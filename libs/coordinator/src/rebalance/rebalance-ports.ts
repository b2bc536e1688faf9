import type { ClassicGroup } from '../group/classic-group';
import type { MemberMetadata } from '../group/member-metadata';
import type { CoordinatorResult } from '../runtime/coordinator-result';

/**
 * The narrow ports the parts of a classic rebalance use to reach each other. Each part depends on
 * these interfaces, never on the class that implements them, so the rebalance code has no import cycle:
 * `JoinPhase` implements `RebalanceTrigger` and `Membership` implements `MemberRemoval`; timers and the
 * writes a phase completion starts go to the step's `OperationEffects`, never to the runtime directly.
 */
export interface RebalanceTrigger {
  /** Kafka's `maybePrepareRebalance`: only from Stable, CompletingRebalance or Empty. */
  maybePrepareRebalance(group: ClassicGroup, reason: string): void;
  prepareRebalance(group: ClassicGroup, reason: string): void;
  /** The join phase completes once every member has rejoined. */
  checkJoin(group: ClassicGroup): void;
}

export interface MemberRemoval {
  removeMemberAndUpdateGroup(group: ClassicGroup, member: MemberMetadata, reason: string): void;
  removePendingMemberAndUpdateGroup(group: ClassicGroup, memberId: string): void;
  /** Takes a member out with its timers and connection binding, and nothing else. */
  drop(group: ClassicGroup, memberId: string): void;
}

/**
 * The shard's `run` as a periodic task sees it (offset retention): a result it produced outside any
 * request is run the same way a handler's is.
 */
export interface ResultSink {
  complete<T>(result: CoordinatorResult<T>): Promise<T | undefined>;
}
