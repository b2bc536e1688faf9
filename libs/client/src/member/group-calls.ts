import type {
  HeartbeatResponse,
  JoinGroupResponse,
  LeaveGroupResponse,
  Subscription,
  SyncGroupAssignment,
  SyncGroupResponse,
} from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE } from '@cohort/protocol';
import type { AssignorSet } from './assignor-set';
import type { CoordinatorLink } from './coordinator-link';
import type { ResolvedMemberOptions } from './member-options';
import type { CommitIdentity as Identity } from './offset-committer';
import type { PartitionSet } from './partition-set';

/**
 * The member's group requests as Kafka's consumer sends them: the subscription of every configured
 * assignor (KIP-429's ownedPartitions, KIP-792's generation, the rack), and Kafka's ack timeouts —
 * JoinGroup and SyncGroup may be held by the coordinator for a whole rebalance timeout, plus 5 s.
 */
export class GroupCalls {
  readonly requestTimeoutMs: number;
  private readonly rebalanceAckMs: number;

  constructor(
    private readonly options: ResolvedMemberOptions,
    private readonly assignors: AssignorSet,
    private readonly link: CoordinatorLink,
  ) {
    this.requestTimeoutMs = Math.max(options.sessionTimeoutMs, 5000);
    this.rebalanceAckMs = options.rebalanceTimeoutMs + 5000;
  }

  join(memberId: string, reason: string, owned: PartitionSet, generationId: number): Promise<JoinGroupResponse> {
    const o = this.options;
    return this.link.request(
      'JoinGroup',
      {
        groupId: o.groupId,
        sessionTimeoutMs: o.sessionTimeoutMs,
        rebalanceTimeoutMs: o.rebalanceTimeoutMs,
        memberId,
        ...(o.groupInstanceId !== null ? { groupInstanceId: o.groupInstanceId } : {}),
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocols: this.protocols(owned, generationId),
        reason,
        ...(o.serverAssignor !== null ? { serverAssignor: o.serverAssignor } : {}),
      },
      this.rebalanceAckMs,
    );
  }

  sync(
    identity: Identity,
    protocolName: string | null,
    assignments: SyncGroupAssignment[],
  ): Promise<SyncGroupResponse> {
    return this.link.request(
      'SyncGroup',
      {
        groupId: this.options.groupId,
        ...this.who(identity),
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocolName,
        assignments,
      },
      this.rebalanceAckMs,
    );
  }

  /** `sent` learns when the Heartbeat actually went out (after any wait for the coordinator). */
  heartbeat(identity: Identity, sent?: (at: number) => void): Promise<HeartbeatResponse> {
    return this.link.request(
      'Heartbeat',
      { groupId: this.options.groupId, ...this.who(identity) },
      this.options.sessionTimeoutMs,
      sent ? { onSent: sent } : undefined,
    );
  }

  leave(memberId: string, reason: string): Promise<LeaveGroupResponse> {
    return this.link.request(
      'LeaveGroup',
      { groupId: this.options.groupId, members: [{ memberId, reason }] },
      this.requestTimeoutMs,
    );
  }

  metadata(topics: string[]) {
    return this.link.request('Metadata', { topics }, this.requestTimeoutMs);
  }

  private who(identity: Identity): { generationId: number; memberId: string; groupInstanceId?: string } {
    return {
      generationId: identity.generationId,
      memberId: identity.memberId,
      ...(identity.groupInstanceId !== null ? { groupInstanceId: identity.groupInstanceId } : {}),
    };
  }

  private protocols(owned: PartitionSet, generationId: number): { name: string; metadata: Subscription }[] {
    const o = this.options;
    const base: Subscription = {
      topics: o.topics,
      ownedPartitions: owned.toList(),
      generationId,
      ...(o.rackId !== null ? { rackId: o.rackId } : {}),
    };
    if (o.serverAssignor !== null) return [{ name: o.serverAssignor, metadata: base }];
    return this.assignors.assignors.map((assignor) => {
      const userData = assignor.subscriptionUserData?.(o.topics);
      return { name: assignor.name, metadata: userData === undefined ? base : { ...base, userData } };
    });
  }
}
