import type { OffsetFetchPartition, OffsetFetchRequest, OffsetFetchResponse } from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { GroupRegistry } from '../group/group-registry';
import { ConsumerGroupError } from '../consumer/consumer-errors';
import type { ConsumerGroup } from '../consumer/consumer-group';
import { validateOffsetFetch } from '../consumer/consumer-group-rules';

const NO_OFFSET = (partitionIndex: number, errorCode: number = ErrorCode.NONE): OffsetFetchPartition => ({
  partitionIndex,
  committedOffset: -1,
  committedLeaderEpoch: -1,
  metadata: '',
  errorCode,
});

/**
 * Kafka's `getOffsets`: committed offsets in any group state, never one whose record is not yet
 * committed. `topics: null` lists every committed offset; `requireStable` turns a partition with a write
 * in flight into UNSTABLE_OFFSET_COMMIT (KIP-447). A fetch naming a member of a consumer group
 * (`consumerGroup`) is refused as a whole, as Kafka's `ConsumerGroup.validateOffsetFetch` refuses it, when
 * the member is unknown (UNKNOWN_MEMBER_ID) or its epoch is not the member's (STALE_MEMBER_EPOCH; a classic
 * member's, ILLEGAL_GENERATION); a classic group does not check them, as Kafka's does not.
 */
export function handleOffsetFetch(
  groups: GroupRegistry,
  request: OffsetFetchRequest,
  consumerGroup?: ConsumerGroup,
): OffsetFetchResponse {
  if (consumerGroup) {
    try {
      validateOffsetFetch(consumerGroup, request.memberId, request.memberEpoch ?? -1);
    } catch (error) {
      if (!(error instanceof ConsumerGroupError)) throw error;
      throw KafkaError.of(error.errorName, error.message);
    }
  }
  const group = groups.get(request.groupId);
  if (!group || group.is('Dead')) {
    return {
      errorCode: 0,
      topics: (request.topics ?? []).map((t) => ({
        name: t.name,
        partitions: t.partitionIndexes.map((p) => NO_OFFSET(p)),
      })),
    };
  }
  const requested =
    request.topics ??
    [...groupBy(group.offsets.all().map((o) => [o.topic, o.partition] as const))].map(([name, partitionIndexes]) => ({
      name,
      partitionIndexes,
    }));
  return {
    errorCode: 0,
    topics: requested.map((t) => ({
      name: t.name,
      partitions: t.partitionIndexes.map((partitionIndex) => {
        if (request.requireStable && group.offsets.isStaged(t.name, partitionIndex))
          return NO_OFFSET(partitionIndex, ErrorCode.UNSTABLE_OFFSET_COMMIT);
        const committed = group.offsets.get(t.name, partitionIndex);
        if (!committed) return NO_OFFSET(partitionIndex);
        return {
          partitionIndex,
          committedOffset: committed.offset,
          committedLeaderEpoch: committed.leaderEpoch,
          metadata: committed.metadata,
          errorCode: ErrorCode.NONE,
        };
      }),
    })),
  };
}

function groupBy(pairs: (readonly [string, number])[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const [topic, partition] of pairs) {
    const list = out.get(topic);
    if (list) list.push(partition);
    else out.set(topic, [partition]);
  }
  return out;
}
