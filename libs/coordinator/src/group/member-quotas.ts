import type { JoinGroupProtocol } from '@cohort/protocol';
import type { MemberMetadata } from './member-metadata';

/** What one principal may hold in this node's memory through membership (docs/security.md); 0 = no limit. */
export interface MemberQuotaLimits {
  /** MAX_MEMBERS_PER_PRINCIPAL: members and KIP-394 pending member ids, across every group of the node. */
  maxMembersPerPrincipal: number;
  /** MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL: the JoinGroup protocols (names and metadata, as JSON) its members hold. */
  maxMemberMetadataBytesPerPrincipal: number;
}

export type MemberQuotaLimit = 'members' | 'metadata-bytes';

/** A member object, or a pending member id's key (`pendingHolder`): what holds a charge. */
export type QuotaHolder = MemberMetadata | string;

interface Charge {
  principal: string;
  bytes: number;
  /** Whether the holder is still in its group (a safety net: every removal path releases, a missed one is found here). */
  live: () => boolean;
}

interface Usage {
  members: number;
  bytes: number;
  holders: Set<QuotaHolder>;
}

/** The key a KIP-394 pending id is charged under (pending ids are strings, not member objects). */
export function pendingHolder(groupId: string, memberId: string): string {
  return `${groupId}\u0000${memberId}`;
}

/**
 * The key a consumer group (KIP-848) or share group (KIP-932) member is charged under: those members
 * are replaced by a new object at every change, so their group, kind and id name them.
 */
export function groupMemberHolder(kind: 'consumer' | 'share', groupId: string, memberId: string): string {
  return `${kind}\u0000${groupId}\u0000${memberId}`;
}

/**
 * What a consumer or share group member's subscription costs, measured as a classic member's protocols
 * are: the bytes of its JSON (`{"subscribedTopicNames":[...],"subscribedTopicRegex":...}`), the form it arrives in.
 */
export function subscriptionBytes(topicNames: Iterable<string>, topicRegex: string | null): number {
  return Buffer.byteLength(
    JSON.stringify({ subscribedTopicNames: [...topicNames], subscribedTopicRegex: topicRegex }),
    'utf8',
  );
}

/** What a member's protocols cost: the bytes of their JSON, the form they arrived in. */
export function protocolBytes(protocols: JoinGroupProtocol[]): number {
  return Buffer.byteLength(JSON.stringify(protocols) ?? '', 'utf8');
}

/**
 * The members, pending member ids and protocol bytes each principal holds on this node (one ledger
 * for every shard, as memory is the node's), checked before a JoinGroup adds any, and before a
 * ConsumerGroupHeartbeat or ShareGroupHeartbeat adds a member or grows its subscription (whose bytes
 * count as a classic member's protocols do): over a limit the request is refused with
 * THROTTLING_QUOTA_EXCEEDED (89) and nothing changes. Every way a member
 * or pending id leaves releases its charge; at the limit the principal's charges are checked once more
 * against the groups, so a removal path that forgot to release cannot lock a principal out.
 * A caller without a principal (a super user, a member loaded from the log) is not counted.
 */
export class MemberQuotas {
  private readonly charges = new Map<QuotaHolder, Charge>();
  private readonly usage = new Map<string, Usage>();

  constructor(private readonly limits: MemberQuotaLimits) {}

  /** Whether anything is counted at all for `principal` (the protocols' bytes are measured only then). */
  counts(principal: string | undefined): principal is string {
    return (
      principal !== undefined &&
      (this.limits.maxMembersPerPrincipal > 0 || this.limits.maxMemberMetadataBytesPerPrincipal > 0)
    );
  }

  /**
   * Why `principal` may not make `holder` (a new member or pending id when undefined) hold `bytes`,
   * or null when it may. What `holder` holds now for the same principal is replaced, not added to.
   */
  refusal(
    principal: string,
    holder: QuotaHolder | undefined,
    bytes: number,
  ): { limit: MemberQuotaLimit; message: string } | null {
    let over = this.over(principal, holder, bytes);
    if (over === null) return null;
    this.forgetGone(principal);
    over = this.over(principal, holder, bytes);
    if (over === null) return null;
    const { members, bytes: held } = this.usageOf(principal);
    return over === 'members'
      ? {
          limit: over,
          message: `${principal} holds ${members} members and pending member ids on this node, the most MAX_MEMBERS_PER_PRINCIPAL=${this.limits.maxMembersPerPrincipal} allows; leave a group or let pending ids expire first`,
        }
      : {
          limit: over,
          message: `${principal}'s members hold ${held} bytes of protocol metadata on this node; ${bytes} more would pass MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL=${this.limits.maxMemberMetadataBytesPerPrincipal}`,
        };
  }

  /** Charges `holder` to `principal` (replacing its charge); without a principal, releases it. */
  hold(holder: QuotaHolder, principal: string | undefined, bytes: number, live: () => boolean): void {
    this.release(holder);
    if (!this.counts(principal)) return;
    this.charges.set(holder, { principal, bytes, live });
    let usage = this.usage.get(principal);
    if (!usage) this.usage.set(principal, (usage = { members: 0, bytes: 0, holders: new Set() }));
    usage.members++;
    usage.bytes += bytes;
    usage.holders.add(holder);
  }

  /** Whether `holder` holds a charge (of any principal). */
  holds(holder: QuotaHolder): boolean {
    return this.charges.has(holder);
  }

  release(holder: QuotaHolder): void {
    const charge = this.charges.get(holder);
    if (!charge) return;
    this.charges.delete(holder);
    const usage = this.usage.get(charge.principal)!;
    usage.members--;
    usage.bytes -= charge.bytes;
    usage.holders.delete(holder);
    if (usage.members === 0) this.usage.delete(charge.principal);
  }

  /** Releases every member and pending id of groups this node no longer serves (a shard closed). */
  releaseGroups(
    groups: Iterable<{ groupId: string; allMembers(): MemberMetadata[]; allPendingMembers(): string[] }>,
  ): void {
    for (const group of groups) {
      for (const member of group.allMembers()) this.release(member);
      for (const memberId of group.allPendingMembers()) this.release(pendingHolder(group.groupId, memberId));
    }
  }

  /** Releases every member of consumer or share groups this node no longer serves (a shard closed). */
  releaseMembers(
    kind: 'consumer' | 'share',
    groups: Iterable<{ groupId: string; members: ReadonlyMap<string, unknown> }>,
  ): void {
    if (this.charges.size === 0) return;
    for (const group of groups)
      for (const memberId of group.members.keys()) this.release(groupMemberHolder(kind, group.groupId, memberId));
  }

  usageOf(principal: string): { members: number; bytes: number } {
    const usage = this.usage.get(principal);
    return { members: usage?.members ?? 0, bytes: usage?.bytes ?? 0 };
  }

  private over(principal: string, holder: QuotaHolder | undefined, bytes: number): MemberQuotaLimit | null {
    const { members, bytes: held } = this.usageOf(principal);
    const current = holder === undefined ? undefined : this.charges.get(holder);
    const replaced = current?.principal === principal ? current : undefined;
    const maxMembers = this.limits.maxMembersPerPrincipal;
    const maxBytes = this.limits.maxMemberMetadataBytesPerPrincipal;
    if (maxMembers > 0 && !replaced && members + 1 > maxMembers) return 'members';
    if (maxBytes > 0 && bytes > (replaced?.bytes ?? 0) && held - (replaced?.bytes ?? 0) + bytes > maxBytes)
      return 'metadata-bytes';
    return null;
  }

  private forgetGone(principal: string): void {
    const usage = this.usage.get(principal);
    if (!usage) return;
    for (const holder of [...usage.holders]) if (!this.charges.get(holder)!.live()) this.release(holder);
  }
}
