import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupMember } from './consumer-group-member';

/** A topic's partition count, or undefined when it does not exist (the topic registry, Kafka's metadata image). */
export type PartitionCountLookup = (topic: string) => number | undefined;

/**
 * Kafka's `computeSubscribedTopicNames`: the group's subscriber counts with `oldMember` replaced by
 * `newMember` (either may be absent), without changing the group.
 */
export function subscribedTopicNamesAfter(
  group: ConsumerGroup,
  oldMember: ConsumerGroupMember | undefined,
  newMember: ConsumerGroupMember | undefined,
): Map<string, number> {
  const counts = new Map(group.subscribedTopicNames);
  if (oldMember) {
    for (const topic of oldMember.subscribedTopicNames) {
      const next = (counts.get(topic) ?? 0) - 1;
      if (next <= 0) counts.delete(topic);
      else counts.set(topic, next);
    }
  }
  if (newMember) for (const topic of newMember.subscribedTopicNames) counts.set(topic, (counts.get(topic) ?? 0) + 1);
  return counts;
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
  const topics = Object.keys(metadata).sort();
  if (topics.length === 0) return 0;
  let hash = 0x811c9dc5;
  const mix = (text: string): void => {
    for (let i = 0; i < text.length; i++) {
      hash ^= text.charCodeAt(i);
      hash = Math.imul(hash, 0x01000193) >>> 0;
    }
  };
  for (const topic of topics) mix(`${topic}\u0000${metadata[topic]}\u0000`);
  return hash === 0 ? 1 : hash;
}
