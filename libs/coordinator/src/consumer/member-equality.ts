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
  if (a === b) return true;
  if (a.size !== b.size) return false;
  if (a.size < REMEMBERED_FROM) return containsAll(a, b);
  // A heartbeat that brings a long subscription compares the same two sets several times (a set of
  // names is never changed once made): each pair is walked once.
  let answers = comparedWith.get(a);
  const known = answers?.get(b) ?? comparedWith.get(b)?.get(a);
  if (known !== undefined) return known;
  const same = containsAll(a, b);
  if (answers === undefined) comparedWith.set(a, (answers = new WeakMap()));
  answers.set(b, same);
  return same;
}

function containsAll(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  for (const name of a) if (!b.has(name)) return false;
  return true;
}

/** Sets of names compared so far, by the first one given; below this size, comparing is cheaper than remembering. */
const comparedWith = new WeakMap<ReadonlySet<string>, WeakMap<ReadonlySet<string>, boolean>>();
const REMEMBERED_FROM = 256;
