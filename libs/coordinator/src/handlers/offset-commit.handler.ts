import type { OffsetCommitRequest, OffsetCommitResponse, TopicPartitionErrors } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { ClassicGroup } from '../group/classic-group';
import type { OffsetEntry } from '../offsets/offset-writes';
import { errorFields } from '../responses/error-fields';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import type { OffsetWrites } from '../offsets/offset-writes';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { validateCurrentMember } from './member-validation';
import { knownPartition } from './topic-validation';
import type { ConsumerGroup } from '../consumer/consumer-group';
import { ConsumerGroupError } from '../consumer/consumer-errors';
import { validateOffsetCommit as validateConsumerOffsetCommit } from '../consumer/consumer-group-rules';

interface CommitItem {
  topic: string;
  partitionIndex: number;
  errorCode: number;
  entry?: OffsetEntry;
}

export interface CommitOptions {
  /** REST `POST /v1/groups/:groupId/offsets`: only an Empty (or absent) group, else NON_EMPTY_GROUP. */
  adminReset?: boolean;
  /**
   * The consumer group of the request's id, if it names one: the commit is checked by its rules (member
   * and member epoch, STALE_MEMBER_EPOCH) and its offsets are kept under the id, in an offsets-only
   * holder that is not a classic group of its own.
   */
  consumerGroup?: ConsumerGroup;
}

/**
 * Kafka's OffsetCommit (`handleCommitOffsets`, `validateOffsetCommit`, `storeOffsets`). The reply leaves
 * only once the records are committed; the top-level errorCode is set when an error applies to the
 * whole request (group validation, the write), and left 0 when only some partitions failed (3, 12).
 */
export function handleOffsetCommit(
  classic: ClassicGroupManager,
  offsets: OffsetWrites,
  request: OffsetCommitRequest,
  context: RequestContext,
  options: CommitOptions = {},
): CoordinatorResult<OffsetCommitResponse> {
  // The commit re-arms the member's session: that timer goes out with the result.
  return classic.finish(offsetCommit(classic, offsets, request, context, options));
}

function offsetCommit(
  classic: ClassicGroupManager,
  offsets: OffsetWrites,
  request: OffsetCommitRequest,
  context: RequestContext,
  options: CommitOptions,
): CoordinatorResult<OffsetCommitResponse> {
  const { config, topics } = classic.env;
  const now = classic.now;
  const items: CommitItem[] = request.topics.flatMap((t) =>
    t.partitions.map((p) => {
      const item: CommitItem = { topic: t.name, partitionIndex: p.partitionIndex, errorCode: ErrorCode.NONE };
      if (!knownPartition(topics, t.name, p.partitionIndex)) item.errorCode = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
      else if (Buffer.byteLength(p.committedMetadata ?? '', 'utf8') > config.offsetMetadataMaxBytes)
        item.errorCode = ErrorCode.OFFSET_METADATA_TOO_LARGE;
      else {
        item.entry = {
          topic: t.name,
          partition: p.partitionIndex,
          value: {
            offset: p.committedOffset,
            leaderEpoch: p.committedLeaderEpoch ?? -1,
            metadata: p.committedMetadata ?? '',
            commitTimestamp: now,
            expireTimestamp: null,
          },
        };
      }
      return item;
    }),
  );
  const finish = (topLevelError: number, message?: string): OffsetCommitResponse => ({
    ...errorFields(topLevelError, message),
    topics: byTopic(items),
  });
  const failAll = (error: number, message?: string): CoordinatorResult<OffsetCommitResponse> => {
    for (const item of items) if (item.errorCode !== ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) item.errorCode = error;
    return answer(finish(error, message));
  };
  if (items.every((i) => i.errorCode === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)) return answer(finish(ErrorCode.NONE));

  const consumerGroup = options.consumerGroup;
  if (consumerGroup) {
    if (options.adminReset && consumerGroup.state !== 'Empty')
      return failAll(
        ErrorCode.NON_EMPTY_GROUP,
        `group ${request.groupId} is ${consumerGroup.state}; offsets can be set only while it is Empty`,
      );
    try {
      validateConsumerOffsetCommit(consumerGroup, request.memberId ?? null, request.generationId);
    } catch (error) {
      if (!(error instanceof ConsumerGroupError)) throw error;
      return failAll(error.errorCode, error.message);
    }
    const holder = classic.groups.get(request.groupId) ?? classic.groups.create(request.groupId);
    return write(holder);
  }
  let group = classic.groups.get(request.groupId);
  if (group && options.adminReset && !group.is('Empty')) {
    return failAll(
      ErrorCode.NON_EMPTY_GROUP,
      `group ${request.groupId} is ${group.state}; offsets can be set only while it is Empty`,
    );
  }
  if (!group) {
    // A simple consumer (manual assignment) or an admin commits with generation -1: create an Empty group.
    if (request.generationId >= 0)
      return failAll(ErrorCode.ILLEGAL_GENERATION, `group ${request.groupId} does not exist`);
    group = classic.groups.create(request.groupId);
  }
  const error = validateOffsetCommit(group, request);
  if (error !== ErrorCode.NONE) {
    classic.groups.dropIfUnused(group);
    return failAll(error);
  }
  const member = request.memberId ? group.get(request.memberId) : undefined;
  // A known member's request binds it to this connection, whatever the answer (pushes follow it).
  if (member) classic.connections.bind(group, member, context.connectionId);
  if (group.is('CompletingRebalance')) return failAll(ErrorCode.REBALANCE_IN_PROGRESS);
  if (member && (group.is('Stable') || group.is('PreparingRebalance'))) classic.liveness.heartbeat(group, member);
  return write(group);

  function write(group: ClassicGroup): CoordinatorResult<OffsetCommitResponse> {
    const entries = items.flatMap((i) => (i.entry ? [i.entry] : []));
    if (entries.length === 0) {
      classic.groups.dropIfUnused(group);
      return answer(finish(ErrorCode.NONE));
    }
    const written = offsets.commit(group, entries);
    return {
      records: written.records,
      appendFuture: written.appendFuture,
      response: finish(ErrorCode.NONE),
      onFailure: (outcome) => {
        const writeError = written.onFailure!(outcome);
        for (const item of items) if (item.entry) item.errorCode = writeError;
        return finish(writeError);
      },
    };
  }
}

/** Kafka's `validateOffsetCommit` for a non-transactional commit. */
function validateOffsetCommit(group: ClassicGroup, request: OffsetCommitRequest): number {
  if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  // Generation -1: the admin client or a consumer without group management; allowed while the group is Empty.
  if (request.generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
  const memberId = request.memberId ?? '';
  if (request.generationId >= 0 || memberId !== '' || request.groupInstanceId != null) {
    const memberError = validateCurrentMember(group, memberId, request.groupInstanceId);
    if (memberError !== ErrorCode.NONE) return memberError;
    return request.generationId === group.generationId ? ErrorCode.NONE : ErrorCode.ILLEGAL_GENERATION;
  }
  // Only members may commit to a group that has some.
  return group.is('Empty') ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
}

function byTopic(items: CommitItem[]): TopicPartitionErrors[] {
  const out: TopicPartitionErrors[] = [];
  const index = new Map<string, TopicPartitionErrors>();
  for (const item of items) {
    let topic = index.get(item.topic);
    if (!topic) {
      topic = { name: item.topic, partitions: [] };
      index.set(item.topic, topic);
      out.push(topic);
    }
    topic.partitions.push({ partitionIndex: item.partitionIndex, errorCode: item.errorCode });
  }
  return out;
}
