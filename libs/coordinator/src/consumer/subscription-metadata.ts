import type { ConsumerGroup } from './consumer-group';
import { type ConsumerGroupMember, hasRegex } from './consumer-group-member';
import { resolveRegexes, withResolvedTopics } from './topic-regex';

/** A topic's partition count, or undefined when it does not exist (the topic registry, Kafka's metadata image). */
export type PartitionCountLookup = (topic: string) => number | undefined;

/** The group's subscriber counts per regular expression with `oldMember` replaced by `newMember`. */
export function subscribedRegexesAfter(
  group: ConsumerGroup,
  oldMember: ConsumerGroupMember | undefined,
  newMember: ConsumerGroupMember | undefined,
): Map<string, number> {
  const counts = new Map(group.subscribedRegexes);
  if (oldMember && hasRegex(oldMember)) {
    const next = (counts.get(oldMember.subscribedTopicRegex) ?? 0) - 1;
    if (next <= 0) counts.delete(oldMember.subscribedTopicRegex);
    else counts.set(oldMember.subscribedTopicRegex, next);
  }
  if (newMember && hasRegex(newMember))
    counts.set(newMember.subscribedTopicRegex, (counts.get(newMember.subscribedTopicRegex) ?? 0) + 1);
  return counts;
}

/** What a group subscribes to: the existing topics with their partition counts, and each regex's matches. */
export interface GroupSubscription {
  metadata: Record<string, number>;
  resolved: Map<string, Set<string>>;
}

/**
 * The group's subscription as its target assignment sees it (Kafka's subscribed topic names with the
 * group's resolved regular expressions): the names, and the known topics each pattern matches, resolved
 * against the registry now, so a topic that appears is matched at the next computation. `names` may
 * hold names of topics that do not exist (they are left out); the coordinator gives only those that
 * do (existing-subscribed-topics.ts), so the cost is that of the topics, not of the names.
 */
export function groupSubscription(
  names: Iterable<string>,
  regexes: Iterable<string>,
  topicNames: () => readonly string[],
  partitionsOf: PartitionCountLookup,
): GroupSubscription {
  const patterns = [...regexes];
  const resolved = patterns.length === 0 ? new Map<string, Set<string>>() : resolveRegexes(patterns, topicNames());
  return { metadata: subscriptionMetadata(withResolvedTopics(names, resolved), partitionsOf), resolved };
}

/** Kafka's subscription metadata: every subscribed topic that exists, with its partition count. */
export function subscriptionMetadata(
  subscribedTopics: Iterable<string>,
  partitionsOf: PartitionCountLookup,
): Record<string, number> {
  const metadata: Record<string, number> = {};
  for (const topic of subscribedTopics) {
    const partitions = partitionsOf(topic);
    if (partitions !== undefined) metadata[topic] = partitions;
  }
  return metadata;
}

/**
 * Kafka 4.1's metadata hash (KIP-1101), in spirit: one number that changes when a subscribed topic
 * appears, disappears or changes its partition count, so comparing it tells whether the group epoch
 * must move. FNV-1a over the topics in name order; 0 is "nothing subscribed exists".
 */
export function metadataHash(metadata: Record<string, number>): number {
  const topics = Object.keys(metadata);
  if (topics.length === 0) return 0;
  if (topics.length > 1) topics.sort();
  let hash = FNV_OFFSET;
  for (const topic of topics) hash = withTopic(hash, topic, metadata[topic]);
  return hash === 0 ? 1 : hash;
}

/**
 * `metadataHash(subscriptionMetadata(topics, partitionsOf))` without building the metadata: what a
 * steady heartbeat of a group subscribed by name checks on every heartbeat (for one topic, nothing is
 * allocated).
 */
export function topicsMetadataHash(topics: Iterable<string>, partitionsOf: PartitionCountLookup): number {
  let first: string | undefined;
  let firstPartitions = 0;
  let several: string[] | undefined;
  for (const topic of topics) {
    const partitions = partitionsOf(topic);
    if (partitions === undefined) continue;
    if (first === undefined) {
      first = topic;
      firstPartitions = partitions;
    } else (several ??= [first]).push(topic);
  }
  if (first === undefined) return 0;
  let hash = FNV_OFFSET;
  if (several === undefined) hash = withTopic(hash, first, firstPartitions);
  else for (const topic of several.sort()) hash = withTopic(hash, topic, partitionsOf(topic)!);
  return hash === 0 ? 1 : hash;
}

const FNV_OFFSET = 0x811c9dc5;

/** Mixes in `${topic}\0${partitions}\0`, piece by piece (every heartbeat hashes: no strings built). */
function withTopic(hash: number, topic: string, partitions: number): number {
  hash = fnv1a(hash, topic);
  hash = Math.imul(hash, FNV_PRIME) >>> 0; // the \0 after it (hash ^ 0 is hash)
  hash = fnv1aDecimal(hash, partitions);
  return Math.imul(hash, FNV_PRIME) >>> 0;
}

/** `fnv1a(hash, String(count))` without making the string: a partition count's decimal digits, first to last. */
function fnv1aDecimal(hash: number, count: number): number {
  // A partition count is an int32 (Kafka's): its quotients below are exact; anything else is hashed as text.
  if (!Number.isInteger(count) || count < 0 || count > 0x7fffffff) return fnv1a(hash, String(count));
  let unit = 1;
  while (unit * 10 <= count) unit *= 10;
  for (; unit >= 1; unit /= 10) hash = Math.imul(hash ^ (ZERO + (Math.floor(count / unit) % 10)), FNV_PRIME) >>> 0;
  return hash;
}

const ZERO = 0x30;

const FNV_PRIME = 0x01000193;

/** FNV-1a's step over each UTF-16 code unit of `text`. */
function fnv1a(hash: number, text: string): number {
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), FNV_PRIME) >>> 0;
  return hash;
}
