import type { ConsumerGroupMember } from './consumer-group-member';
import { canonicalJson } from '../group/protocol-metadata';
import { samePartitions } from './topic-partitions';

/** Kafka's `ConsumerGroupMember.equals`: every field, sets and partitions by content. */
export function sameMember(a: ConsumerGroupMember, b: ConsumerGroupMember): boolean {
  if (a === b) return true;
  return (
    a.memberId === b.memberId &&
    a.memberEpoch === b.memberEpoch &&
    a.previousMemberEpoch === b.previousMemberEpoch &&
    a.state === b.state &&
    a.instanceId === b.instanceId &&
    a.rackId === b.rackId &&
    a.rebalanceTimeoutMs === b.rebalanceTimeoutMs &&
    a.clientId === b.clientId &&
    a.clientHost === b.clientHost &&
    a.subscribedTopicRegex === b.subscribedTopicRegex &&
    a.serverAssignorName === b.serverAssignorName &&
    sameNames(a.subscribedTopicNames, b.subscribedTopicNames) &&
    samePartitions(a.assignedPartitions, b.assignedPartitions) &&
    samePartitions(a.partitionsPendingRevocation, b.partitionsPendingRevocation) &&
    canonicalJson(a.classicMemberMetadata) === canonicalJson(b.classicMemberMetadata)
  );
}

/** The same topic names, in any order. */
export function sameNames(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const name of a) if (!b.has(name)) return false;
  return true;
}
