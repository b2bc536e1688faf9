import { KafkaError, LEGAL_NAME_PATTERN } from '@cohort/protocol';
import type { EndOffsetReport, TopicInfo } from '../ports/topic-registry.port';
import { addToTimeIndex, type EndOffsetTimeIndex } from './end-offset-time-index';

/**
 * The rules every TopicRegistry implementation enforces (embedded file, Redis), so a request is refused
 * the same way whichever mode the node runs in. Each throws a KafkaError naming what is wrong.
 */

export function validateTopicName(name: string): void {
  if (typeof name !== 'string' || !LEGAL_NAME_PATTERN.test(name) || name === '.' || name === '..') {
    throw KafkaError.of(
      'INVALID_REQUEST',
      `invalid topic name '${String(name)}': use 1-249 characters of [a-zA-Z0-9._-], not "." or ".."`,
    );
  }
}

export function validatePartitionCount(partitions: number): void {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1_000_000) {
    throw KafkaError.of(
      'INVALID_REQUEST',
      `partitions must be an integer between 1 and 1000000, got ${String(partitions)}`,
    );
  }
}

/** The topic must exist (`existing` undefined → UNKNOWN_TOPIC_OR_PARTITION). */
export function requireTopic(name: string, existing: TopicInfo | undefined): TopicInfo {
  if (!existing) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`);
  return existing;
}

/** Counts only grow, as in Kafka. */
export function validateGrowth(topic: TopicInfo, partitions: number): void {
  validatePartitionCount(partitions);
  if (partitions < topic.partitions) {
    throw KafkaError.of(
      'INVALID_REQUEST',
      `topic '${topic.name}' has ${topic.partitions} partitions; the count can only grow (asked for ${partitions})`,
    );
  }
}

/**
 * How far ahead of this node's clock a report may be dated: Kafka 4's default for
 * `log.message.timestamp.after.max.ms` (one hour). A later date would hold every later entry of the
 * partition's time index at that date (times never go back there).
 */
export const MAX_REPORT_TIMESTAMP_AHEAD_MS = 3_600_000;

export function validateEndOffsets(topic: TopicInfo, endOffsets: EndOffsetReport[], now: number): void {
  for (const { partition, endOffset, startOffset, timestamp } of endOffsets) {
    if (!Number.isInteger(partition) || partition < 0 || partition >= topic.partitions) {
      throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${topic.name}' has no partition ${partition}`);
    }
    if (!Number.isSafeInteger(endOffset) || endOffset < 0) {
      throw KafkaError.of('INVALID_REQUEST', `endOffset of partition ${partition} must be a non-negative integer`);
    }
    if (
      startOffset !== undefined &&
      (!Number.isSafeInteger(startOffset) || startOffset < 0 || startOffset > endOffset)
    ) {
      throw KafkaError.of(
        'INVALID_REQUEST',
        `startOffset of partition ${partition} must be an integer from 0 to its endOffset (${endOffset})`,
      );
    }
    if (timestamp !== undefined && (!Number.isSafeInteger(timestamp) || timestamp < 0)) {
      throw KafkaError.of(
        'INVALID_REQUEST',
        `timestamp of partition ${partition} must be milliseconds since the epoch`,
      );
    }
    if (timestamp !== undefined && timestamp > now + MAX_REPORT_TIMESTAMP_AHEAD_MS) {
      throw KafkaError.of(
        'INVALID_TIMESTAMP',
        `timestamp of partition ${partition} (${new Date(timestamp).toISOString()}) is more than an hour ahead of this node's clock (${new Date(now).toISOString()})`,
      );
    }
  }
}

/**
 * Merges reports into `topic` (in place), stamped `at`; a report without a start offset keeps the known
 * one. Each report also goes into its partition's time index in `timeIndexes` (dated by its `timestamp`,
 * else by `at`), when given.
 */
export function applyEndOffsets(
  topic: TopicInfo,
  endOffsets: EndOffsetReport[],
  at: number,
  timeIndexes?: Map<number, EndOffsetTimeIndex>,
): void {
  topic.startOffsets ??= {};
  topic.reportedAt ??= {};
  for (const { partition, endOffset, startOffset, timestamp } of endOffsets) {
    timeIndexes?.set(partition, addToTimeIndex(timeIndexes.get(partition), timestamp ?? at, endOffset));
    topic.endOffsets[partition] = endOffset;
    if (startOffset !== undefined) topic.startOffsets[partition] = startOffset;
    // A known start past the new end (the log was truncated and refilled) cannot stand.
    else if ((topic.startOffsets[partition] ?? 0) > endOffset) delete topic.startOffsets[partition];
    topic.reportedAt[partition] = at;
  }
}

/** Registries hand out copies, so callers can never mutate what they hold. */
export function copyTopic(topic: TopicInfo): TopicInfo {
  return {
    name: topic.name,
    partitions: topic.partitions,
    endOffsets: { ...topic.endOffsets },
    startOffsets: { ...topic.startOffsets },
    reportedAt: { ...topic.reportedAt },
  };
}

/** Topics by name, as copies. */
export function sortedTopicCopies(topics: Iterable<TopicInfo>): TopicInfo[] {
  return [...topics].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(copyTopic);
}
