import type { ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import { ConsumerGroupError } from './consumer-errors';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupMember } from './consumer-group-member';
import { TargetAssignmentBuilder, type TargetAssignmentResult } from './target-assignment-builder';

/**
 * Kafka's `updateTargetAssignment`: the group's new target at `groupEpoch`, with `updated` (the member
 * of this heartbeat, if any) in place of `previous`, by the assignor the members prefer or the first
 * configured. A static member replacing another takes the departed one's place. Whatever the assignor
 * throws becomes UNKNOWN_SERVER_ERROR, as in Kafka.
 */
export function updateTargetAssignment(
  group: ConsumerGroup,
  groupEpoch: number,
  assignors: readonly ConsumerGroupAssignorPort[],
  metadata: Record<string, number>,
  resolved: ReadonlyMap<string, ReadonlySet<string>>,
  now: number,
  change?: { previous: ConsumerGroupMember; updated: ConsumerGroupMember },
): TargetAssignmentResult {
  const preferred = change
    ? group.computePreferredServerAssignor(change.previous, change.updated)
    : group.preferredServerAssignor();
  const assignor = assignors.find((a) => a.name === preferred) ?? assignors[0];
  if (!assignor) throw new ConsumerGroupError('UNKNOWN_SERVER_ERROR', 'No server assignor is configured.');
  const builder = new TargetAssignmentBuilder(group.groupId, groupEpoch, assignor)
    .withMembers(group.members)
    .withStaticMembers(group.staticMembers)
    .withSubscriptionMetadata(metadata)
    .withResolvedRegularExpressions(resolved)
    .withTargetAssignment(group.targetAssignment);
  if (change) {
    const { updated } = change;
    builder.addOrUpdateMember(updated.memberId, updated);
    const previousId = group.staticMemberId(updated.instanceId);
    if (previousId !== undefined && previousId !== updated.memberId) builder.removeMember(previousId);
  }
  try {
    return builder.build(now);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConsumerGroupError(
      'UNKNOWN_SERVER_ERROR',
      `Failed to compute a new target assignment for epoch ${groupEpoch}: ${reason}`,
    );
  }
}
