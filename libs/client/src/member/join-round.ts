import type { JoinGroupResponse, MemberAssignment } from '@cohort/protocol';
import type { AssignorSet } from './assignor-set';
import type { GroupCalls } from './group-calls';
import { leaderAssignment } from './leader-assignment';
import type { Membership } from './membership';
import type { PartitionSet } from './partition-set';
import { RejoinNow } from './rejoin-now';
import { joinAction, syncAction } from './response-actions';
import type { SessionFence } from './session-fence';

export interface JoinRoundHooks {
  /** The membership is gone: the owned partitions are lost, and the member joins afresh. */
  resetGeneration(reason: string, resetMemberId: boolean): void;
  requestRejoin(reason: string): void;
}

/**
 * One JoinGroup + SyncGroup round (Kafka's `joinGroupIfNeeded` body): KIP-394's second JoinGroup, the
 * leader's assignment, and what each answer means for the membership. Ends with the member's new
 * assignment, throws RejoinNow when the round must start over at once, or a CohortError.
 */
export class JoinRound {
  constructor(
    private readonly membership: Membership,
    private readonly calls: GroupCalls,
    private readonly assignors: AssignorSet,
    private readonly fence: SessionFence,
    private readonly hooks: JoinRoundHooks,
  ) {}

  /**
   * JoinGroup until joined. The session fence holds meanwhile (the coordinator keeps a member whose
   * JoinGroup it holds), restarts when joined, and runs on from the JoinGroup's sending if it fails.
   */
  async join(reason: string, owned: PartitionSet): Promise<JoinGroupResponse> {
    this.fence.hold();
    try {
      const response = await this.joinGroup(reason, owned);
      this.fence.joined();
      return response;
    } catch (error) {
      this.fence.release();
      throw error;
    }
  }

  private async joinGroup(reason: string, owned: PartitionSet): Promise<JoinGroupResponse> {
    const m = this.membership;
    for (;;) {
      const sentMemberId = m.memberId;
      const action = joinAction(await this.calls.join(sentMemberId, reason, owned, m.generationId));
      switch (action.kind) {
        case 'joined':
          m.memberId = action.response.memberId;
          m.generationId = action.response.generationId;
          m.protocolName = action.response.protocolName;
          return action.response;
        case 'join-again':
          m.memberId = action.memberId;
          continue;
        case 'retry-now':
          continue;
        case 'reset':
          // An UNKNOWN_MEMBER_ID about an id the member no longer uses is stale.
          if (!action.resetMemberId || sentMemberId === m.memberId)
            this.hooks.resetGeneration(action.reason, action.resetMemberId);
          throw new RejoinNow();
        case 'fail':
          throw action.error;
      }
    }
  }

  async sync(join: JoinGroupResponse): Promise<MemberAssignment> {
    const m = this.membership;
    const generationId = m.generationId;
    const assignments =
      join.leader === m.memberId && !join.skipAssignment
        ? await leaderAssignment(
            join,
            this.assignors.byName(join.protocolName),
            this.assignors.protocol,
            this.isTrusted(join.protocolName),
            (topics) => this.calls.metadata(topics),
          )
        : [];
    const response = await this.calls.sync(m.identity(), m.protocolName, assignments);
    // The heartbeat may have reset the generation meanwhile (Kafka raises ILLEGAL_GENERATION itself then).
    if (generationId !== m.generationId) throw new RejoinNow();
    const action = syncAction(response, m.protocolName);
    switch (action.kind) {
      case 'synced':
        return action.assignment;
      case 'rejoin':
        this.hooks.requestRejoin(action.reason);
        throw new RejoinNow();
      case 'reset':
        this.hooks.resetGeneration(action.reason, action.resetMemberId);
        throw new RejoinNow();
      case 'fail':
        throw action.error;
    }
  }

  private isTrusted(protocolName: string | null): boolean {
    const assignor = this.assignors.byName(protocolName);
    return assignor !== undefined && this.assignors.isBuiltIn(assignor);
  }
}
