import { KafkaError } from '@cohort/protocol';
import type { MemberQuotas } from '../group/member-quotas';
import { checkSubscriptionCharge, type SubscriptionCharge } from '../group/subscription-charge';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import type { ShareGroupMember } from './share-group-model';
import type { ShareGroupStore } from './share-group-replay';

/** A share member's charge against its principal's limits (group/subscription-charge.ts), when its subscription changes. */
export function shareSubscriptionCharge(
  deps: { groups: ShareGroupStore; quotas?: MemberQuotas; metrics?: CoordinatorMetrics },
  groupId: string,
  known: ShareGroupMember | undefined,
  updated: ShareGroupMember,
  principal: string | undefined,
): SubscriptionCharge | undefined {
  if (known?.subscribedTopicNames === updated.subscribedTopicNames) return undefined;
  const { memberId } = updated;
  return checkSubscriptionCharge(
    deps.quotas,
    deps.metrics,
    {
      kind: 'share',
      groupId,
      memberId,
      principal,
      topicNames: updated.subscribedTopicNames,
      topicRegex: null,
      isMember: () => deps.groups.get(groupId)?.member(memberId) !== undefined,
    },
    (message) => KafkaError.of('THROTTLING_QUOTA_EXCEEDED', message),
  );
}
