import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import { groupMemberHolder, type MemberQuotas, subscriptionBytes } from './member-quotas';

/**
 * A consumer or share group member's charge against its principal's limits (MAX_MEMBERS_PER_PRINCIPAL,
 * MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL), as a classic JoinGroup is charged: its subscription (names
 * and regex, as JSON) counts as its metadata bytes. Checked before its heartbeat records anything, held
 * once the records are applied; `replaced` is the member a static member comes back in place of, whose
 * charge it takes over.
 */
export interface SubscriptionCharge {
  holder: string;
  replaced: string;
  principal: string;
  bytes: number;
  /** Whether the member is still in its group (the ledger drops a charge whose member is gone). */
  isMember: () => boolean;
}

export interface SubscriptionChargeRequest {
  kind: 'consumer' | 'share';
  groupId: string;
  memberId: string;
  /** The member this one replaces (a static member back under a new id), if any. */
  replacedMemberId?: string;
  principal: string | undefined;
  topicNames: Iterable<string>;
  topicRegex: string | null;
  isMember: () => boolean;
}

/**
 * The charge of a member joining or changing its subscription, or undefined when its principal is not
 * counted. Over a limit, throws what `refuse` makes of the ledger's message (the group type's own
 * THROTTLING_QUOTA_EXCEEDED), having changed nothing.
 */
export function checkSubscriptionCharge(
  quotas: MemberQuotas | undefined,
  metrics: CoordinatorMetrics | undefined,
  request: SubscriptionChargeRequest,
  refuse: (message: string) => Error,
): SubscriptionCharge | undefined {
  const { principal } = request;
  if (!quotas?.counts(principal)) return undefined;
  const holder = groupMemberHolder(request.kind, request.groupId, request.memberId);
  const replaced =
    request.replacedMemberId === undefined
      ? holder
      : groupMemberHolder(request.kind, request.groupId, request.replacedMemberId);
  const bytes = subscriptionBytes(request.topicNames, request.topicRegex);
  const refused = quotas.refusal(principal, quotas.holds(replaced) ? replaced : holder, bytes);
  if (refused !== null) {
    metrics?.onMemberQuotaRefused?.(refused.limit);
    throw refuse(refused.message);
  }
  return { holder, replaced, principal, bytes, isMember: request.isMember };
}

/** The heartbeat's records are applied: its member holds `charge` from now on. */
export function holdSubscriptionCharge(quotas: MemberQuotas, charge: SubscriptionCharge): void {
  if (charge.replaced !== charge.holder) quotas.release(charge.replaced);
  quotas.hold(charge.holder, charge.principal, charge.bytes, charge.isMember);
}
