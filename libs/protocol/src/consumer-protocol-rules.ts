/**
 * The shape of the `consumer` protocol's metadata and assignment (README, "socket.io quick start"):
 * what a coordinator must refuse with INVALID_REQUEST before storing it, and what a client can check
 * before sending. Like Kafka's ConsumerProtocol deserializer, only the named fields are checked; others
 * are carried along (forward compatibility). Each function returns the problems, one per bad field,
 * each naming the field by its path under `path`; an empty list means well formed.
 */

import { INT32_MAX } from './limits';

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

function stringArray(value: unknown, path: string, problems: string[]): void {
  if (!Array.isArray(value)) return void problems.push(`${path} must be an array of strings`);
  value.forEach((item, i) => void (typeof item !== 'string' && problems.push(`${path}[${i}] must be a string`)));
}

function partitionIndexes(value: unknown, path: string, problems: string[]): void {
  if (!Array.isArray(value)) return void problems.push(`${path} must be an array of partition indexes`);
  value.forEach((item, i) => {
    if (!Number.isInteger(item) || (item as number) < 0 || (item as number) > INT32_MAX)
      problems.push(`${path}[${i}] must be an integer in [0, ${INT32_MAX}]`);
  });
}

/** `[{ topic, partitions: number[] }]`, as ownedPartitions and assignments carry them. */
function topicPartitionsList(value: unknown, path: string, problems: string[]): void {
  if (!Array.isArray(value)) return void problems.push(`${path} must be an array of { topic, partitions }`);
  value.forEach((entry, i) => {
    const at = `${path}[${i}]`;
    if (!isRecord(entry)) return void problems.push(`${at} must be an object { topic, partitions }`);
    if (typeof entry.topic !== 'string') problems.push(`${at}.topic must be a string`);
    partitionIndexes(entry.partitions, `${at}.partitions`, problems);
  });
}

/** `{ topics: string[], userData?, ownedPartitions?: [{ topic, partitions }], generationId?, rackId? }`. */
export function subscriptionProblems(metadata: unknown, path: string): string[] {
  const problems: string[] = [];
  if (!isRecord(metadata)) return [`${path} must be a consumer subscription { topics: string[], ... }`];
  stringArray(metadata.topics, `${path}.topics`, problems);
  if (metadata.ownedPartitions !== undefined)
    topicPartitionsList(metadata.ownedPartitions, `${path}.ownedPartitions`, problems);
  const generationId = metadata.generationId;
  if (
    generationId !== undefined &&
    (!Number.isInteger(generationId) || (generationId as number) < -1 || (generationId as number) > INT32_MAX)
  ) {
    problems.push(`${path}.generationId must be an integer in [-1, ${INT32_MAX}]`);
  }
  const rackId = metadata.rackId;
  if (rackId !== undefined && rackId !== null && typeof rackId !== 'string')
    problems.push(`${path}.rackId must be a string or null`);
  return problems;
}

/** `{ partitions: [{ topic, partitions: number[] }], userData? }`. */
export function assignmentProblems(assignment: unknown, path: string): string[] {
  if (!isRecord(assignment)) return [`${path} must be a consumer assignment { partitions: [{ topic, partitions }] }`];
  const problems: string[] = [];
  topicPartitionsList(assignment.partitions, `${path}.partitions`, problems);
  return problems;
}
