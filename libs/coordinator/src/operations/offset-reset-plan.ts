import type { ResetOffsetsEntry, ResetOffsetsRequest } from '@cohort/protocol';
import { KafkaError, RESET_STRATEGIES } from '@cohort/protocol';
import type { CommittedOffsetView } from '../ports/group-coordinator.api';
import type { TopicRegistry } from '../ports/topic-registry.port';
import { parseResetDatetime, parseResetDuration } from './reset-timestamp';

/** Where a group stands on a partition: its committed offset, or for a share group its start offset (SPSO). */
export type CurrentOffset = Pick<CommittedOffsetView, 'topic' | 'partition' | 'committedOffset'>;

/**
 * Which offsets a reset would commit (kafka-consumer-groups.sh `--reset-offsets`, Kafka's
 * `ResetOffsetsCommand`): the partitions named (a topic without partitions means all of them) or,
 * with `allTopics`, every partition the group has an offset for; then per partition
 *
 * - `earliest` / `latest`: the reported start / end offset (start 0 when none was reported);
 * - `offset`: `value`, and `shift`: the committed offset plus `value`, both kept within the reported
 *   start and end offsets, as Kafka keeps them within the log;
 * - `current`: the committed offset, or the end offset where there is none (as Kafka does);
 * - `datetime` / `duration` (`now` minus it): the end offset as of that time, Kafka's ListOffsets by
 *   timestamp over the reported end offsets: the latest report dated at or before it, or, before the
 *   first report, the reported start offset (else the first report's end offset, the earliest known);
 *   kept within the reported start and end offsets (docs/lag.md).
 *
 * A share group's plan reads its start offsets (SPSO) as the committed ones.
 *
 * Pure: the caller executes the plan by committing exactly these offsets. Throws INVALID_REQUEST or
 * UNKNOWN_TOPIC_OR_PARTITION naming what is wrong.
 */
export function planOffsetReset(
  request: ResetOffsetsRequest,
  committed: readonly CurrentOffset[],
  topics: Pick<TopicRegistry, 'partitionCount' | 'partitionOffsets' | 'endOffsetAsOf'>,
  now: number,
): ResetOffsetsEntry[] {
  const { strategy, value } = request;
  if (!RESET_STRATEGIES.includes(strategy)) throw invalid(`strategy must be one of ${RESET_STRATEGIES.join(', ')}`);
  if ((strategy === 'offset' || strategy === 'shift') && !Number.isSafeInteger(value))
    throw invalid(`strategy '${strategy}' needs an integer value`);
  if (strategy === 'offset' && value! < 0) throw invalid('an offset cannot be negative');
  const asOf = resetTime(request, now);
  const current = new Map(committed.map((o) => [key(o.topic, o.partition), o.committedOffset]));
  return partitionsToReset(request, committed, topics).map(({ topic, partition }) => {
    const currentOffset = current.get(key(topic, partition)) ?? null;
    const reported = topics.partitionOffsets(topic, partition);
    const start = reported?.startOffset ?? 0;
    const end = reported?.endOffset ?? null;
    const needEnd = (): number => {
      if (end === null)
        throw invalid(
          `no end offset has been reported for ${topic}-${partition} (PUT /v1/topics/${topic}/end-offsets)`,
        );
      return end;
    };
    const clamp = (offset: number): number => Math.max(start, end === null ? offset : Math.min(end, offset));
    let newOffset: number;
    switch (strategy) {
      case 'earliest':
        newOffset = start;
        break;
      case 'latest':
        newOffset = needEnd();
        break;
      case 'offset':
        newOffset = clamp(value!);
        break;
      case 'shift':
        if (currentOffset === null)
          throw invalid(
            `cannot shift ${topic}-${partition}: the group has no offset there (committed, or a share group's start offset)`,
          );
        newOffset = clamp(currentOffset + value!);
        break;
      case 'current':
        newOffset = currentOffset ?? needEnd();
        break;
      case 'datetime':
      case 'duration':
        needEnd();
        newOffset = clamp(topics.endOffsetAsOf(topic, partition, asOf!) ?? start);
        break;
    }
    return { topic, partition, currentOffset, newOffset };
  });
}

/** The time a `datetime` or `duration` reset goes back to (ms since the epoch); undefined for the others. */
function resetTime(request: ResetOffsetsRequest, now: number): number | undefined {
  if (request.strategy === 'datetime') {
    if (typeof request.datetime !== 'string') throw invalid("strategy 'datetime' needs a datetime");
    return parseResetDatetime(request.datetime);
  }
  if (request.strategy === 'duration') {
    if (typeof request.duration !== 'string') throw invalid("strategy 'duration' needs a duration");
    return now - parseResetDuration(request.duration);
  }
  return undefined;
}

function partitionsToReset(
  request: ResetOffsetsRequest,
  committed: readonly CurrentOffset[],
  topics: Pick<TopicRegistry, 'partitionCount'>,
): { topic: string; partition: number }[] {
  const named = request.topics !== undefined && request.topics.length > 0;
  if (named === (request.allTopics === true))
    throw invalid('name the topics to reset or set allTopics, not both and not neither');
  if (!named) return committed.map(({ topic, partition }) => ({ topic, partition }));
  const seen = new Set<string>();
  const out: { topic: string; partition: number }[] = [];
  for (const { name, partitions } of request.topics!) {
    const count = topics.partitionCount(name);
    if (count === undefined) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`);
    for (const partition of partitions && partitions.length > 0
      ? partitions
      : Array.from({ length: count }, (_, i) => i)) {
      if (!Number.isInteger(partition) || partition < 0 || partition >= count) {
        throw KafkaError.of(
          'UNKNOWN_TOPIC_OR_PARTITION',
          `topic '${name}' has no partition ${partition} (it has ${count})`,
        );
      }
      if (seen.has(key(name, partition))) continue;
      seen.add(key(name, partition));
      out.push({ topic: name, partition });
    }
  }
  return out.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition));
}

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

function invalid(message: string): KafkaError {
  return KafkaError.of('INVALID_REQUEST', message);
}
