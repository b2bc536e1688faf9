import type { ConsumerGroup } from './consumer-group';
import { type PartitionCountLookup, topicsMetadataHash } from './subscription-metadata';

/** One group's last hash of its topics subscribed by name, with what it was computed from. */
interface Kept {
  /** The subscribed names then, and each one's partition count (undefined: the topic did not exist). */
  topics: string[];
  partitions: (number | undefined)[];
  hash: number;
}

/**
 * `topicsMetadataHash(group.subscribedTopicNames.keys(), partitionsOf)`, kept per group: a steady
 * member's heartbeat checks it on every interval (Kafka keeps its group's metadata hash until a
 * refresh is due), and the names it hashes change only with a subscription. The kept hash is given
 * while the group subscribes to the same names (as many, each still subscribed: the group's counts
 * change in place, so they are compared rather than their map) and each has the partition count it
 * had (a topic created, grown or deleted is a count that differs), so it is always the hash computed
 * anew would be; what it saves is the sort and the hashing of every name and count.
 */
export class SubscribedTopicsHash {
  private readonly kept = new WeakMap<ConsumerGroup, Kept>();

  constructor(private readonly partitionsOf: PartitionCountLookup) {}

  of(group: ConsumerGroup): number {
    const kept = this.kept.get(group);
    const names = group.subscribedTopicNames;
    if (kept !== undefined && this.unchanged(kept, names)) return kept.hash;
    const topics = [...names.keys()];
    const partitions = topics.map((topic) => this.partitionsOf(topic));
    const hash = topicsMetadataHash(topics, this.partitionsOf);
    this.kept.set(group, { topics, partitions, hash });
    return hash;
  }

  private unchanged(kept: Kept, names: ReadonlyMap<string, number>): boolean {
    const { topics, partitions } = kept;
    if (names.size !== topics.length) return false;
    for (let i = 0; i < topics.length; i++) {
      const topic = topics[i];
      if (!names.has(topic) || this.partitionsOf(topic) !== partitions[i]) return false;
    }
    return true;
  }
}
