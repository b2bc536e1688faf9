import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { decodeConsumerRecordKey } from '@cohort/coordinator/consumer/consumer-records';
import { KeyReader } from '@cohort/coordinator/records/key-reader';
import type { CoordinatorHarness } from './coordinator-harness';

/** A classic member as a Kafka client keeps it: its id, generation and the partitions it owns. */
export interface ClassicClient {
  memberId: string;
  generationId: number;
  owned: P.TopicPartitions[];
}

/** Cohort's `consumer` protocol metadata for `topics`, with the partitions the member owns (cooperative). */
export function subscription(topics: string[], owned: P.TopicPartitions[] = []): P.JoinGroupProtocol[] {
  return [{ name: 'range', metadata: { topics, ownedPartitions: owned } }];
}

/** `group` with two classic members that own orders-0 and orders-1 (the harness leader's assignment). */
export async function stableClassicGroup(
  h: CoordinatorHarness,
  groupId: string,
): Promise<{ a: ClassicClient; b: ClassicClient }> {
  const { memberIds, generationId } = await h.stableGroup(groupId, 2);
  const [a, b] = memberIds.map((memberId, i) => ({
    memberId,
    generationId,
    owned: [{ topic: 'orders', partitions: [i] }],
  }));
  return { a, b };
}

/** A ConsumerGroupHeartbeat that joins `memberId` to `groupId` subscribed to orders. */
export function consumerJoin(groupId: string, memberId: string): P.ConsumerGroupHeartbeatRequest {
  return {
    groupId,
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 60_000,
    subscribedTopicNames: ['orders'],
    topicPartitions: [],
  };
}

/**
 * What a classic client does when told to rejoin: JoinGroup with the partitions it owns, then SyncGroup,
 * then it owns what the assignment gives (a cooperative client revokes what is gone, then rejoins if it
 * lost something). Returns the SyncGroup answer.
 */
export async function rejoin(
  h: CoordinatorHarness,
  groupId: string,
  client: ClassicClient,
): Promise<P.SyncGroupResponse> {
  const join = h.join(groupId, client.memberId, { protocols: subscription(['orders'], client.owned) });
  await h.settle();
  if (join.value.errorCode !== ErrorCode.NONE) throw new Error(`join failed: ${JSON.stringify(join.value)}`);
  client.generationId = join.value.generationId;
  const sync = h.sync(groupId, client.memberId, client.generationId, [], { protocolName: join.value.protocolName });
  await h.settle();
  if (sync.value.errorCode === ErrorCode.NONE)
    client.owned = (sync.value.assignment as P.MemberAssignment).partitions.filter((tp) => tp.partitions.length > 0);
  return sync.value;
}

/** The partitions of `owned` lists, as `topic-partition` strings, failing if any is owned twice. */
export function ownedOnce(...owned: P.TopicPartitions[][]): string[] {
  const all = owned.flat().flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));
  const unique = new Set(all);
  if (unique.size !== all.length) throw new Error(`a partition is owned twice: ${all.join(', ')}`);
  return [...unique].sort();
}

/** The record types of a partition's log from `from` on, named as the replay names them. */
export function recordTypes(h: CoordinatorHarness, groupId: string, from = 0): string[] {
  const keys = new KeyReader();
  return h.store
    .records(h.partitionOf(groupId))
    .slice(from)
    .map((record) => {
      const consumer = decodeConsumerRecordKey(record.key);
      const type = consumer ? consumer.type : keys.decode(record.key).type;
      return record.value === null ? `${type} tombstone` : type;
    });
}
