import type { OffsetDeleteRequest, OffsetDeleteResponse, TopicPartitionErrors } from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { PartitionRef } from '../offsets/offset-writes';
import { errorFields } from '../responses/error-fields';
import type { GroupRegistry } from '../group/group-registry';
import type { ConsumerGroup } from '../consumer/consumer-group';
import type { OffsetWrites } from '../offsets/offset-writes';
import type { TopicRegistry } from '../ports/topic-registry.port';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { knownPartition } from './topic-validation';

/**
 * Kafka's OffsetDelete (KIP-496): an Empty group loses the requested offsets; a non-empty `consumer`
 * group keeps those of topics it subscribes to (GROUP_SUBSCRIBED_TO_TOPIC); other non-empty groups are
 * refused (NON_EMPTY_GROUP). A consumer group (KIP-848; its offsets are held by an Empty classic group of
 * the same id) is accepted in any state and keeps the offsets of topics its members subscribe to, as
 * Kafka's `ConsumerGroup.validateOffsetDelete` and `isSubscribedToTopic` do (`consumerSubscribes`: with
 * ACLs on, a topic only regex members who may not describe it match is not subscribed). Deletions are
 * tombstones, answered once committed.
 */
export function handleOffsetDelete(
  groups: GroupRegistry,
  consumerGroup: ConsumerGroup | undefined,
  offsets: OffsetWrites,
  topicRegistry: TopicRegistry,
  request: OffsetDeleteRequest,
  consumerSubscribes: (topic: string) => boolean = (topic) => consumerGroup!.isSubscribedToTopic(topic),
): CoordinatorResult<OffsetDeleteResponse> {
  const found = groups.get(request.groupId);
  const group = found && !found.is('Dead') ? found : undefined;
  if (!group && !consumerGroup) throw KafkaError.of('GROUP_ID_NOT_FOUND', `group ${request.groupId} does not exist`);
  if (!consumerGroup && group && !group.is('Empty') && !group.isConsumerGroup)
    throw KafkaError.of('NON_EMPTY_GROUP', `group ${request.groupId} is ${group.state}`);
  const subscribed = (topic: string): boolean =>
    consumerGroup ? consumerSubscribes(topic) : !group!.is('Empty') && group!.isSubscribedToTopic(topic);
  const topics: TopicPartitionErrors[] = request.topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map(({ partitionIndex }) => {
      let errorCode: number = ErrorCode.NONE;
      if (!knownPartition(topicRegistry, t.name, partitionIndex)) errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (subscribed(t.name)) errorCode = ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC;
      return { partitionIndex, errorCode };
    }),
  }));
  const eligible = topics.flatMap((t) =>
    t.partitions.filter((p) => p.errorCode === ErrorCode.NONE).map((p) => ({ topic: t.name, p })),
  );
  const withOffsets: PartitionRef[] = eligible
    .filter(
      ({ topic, p }) =>
        group !== undefined &&
        (group.offsets.has(topic, p.partitionIndex) || group.offsets.isStaged(topic, p.partitionIndex)),
    )
    .map(({ topic, p }) => ({ topic, partition: p.partitionIndex }));
  const reply = (error: number): OffsetDeleteResponse => {
    for (const { p } of eligible) p.errorCode = error;
    return { ...errorFields(error), topics };
  };
  if (withOffsets.length === 0) return answer(reply(ErrorCode.NONE));
  const write = offsets.delete(group!, withOffsets, false);
  return {
    records: write.records,
    appendFuture: write.appendFuture,
    response: reply(ErrorCode.NONE),
    onFailure: (outcome) => reply(write.onFailure!(outcome)),
  };
}
