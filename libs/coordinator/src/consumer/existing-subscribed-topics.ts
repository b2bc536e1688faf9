import { type PartitionCountLookup, topicsMetadataHash } from './subscription-metadata';

/** A group whose members subscribe to topics by name: a consumer group or a share group. */
export interface NameSubscribedGroup {
  /** Subscriber count per topic name. */
  readonly subscribedTopicNames: ReadonlyMap<string, number>;
  /** Moves whenever those counts change (SubscribedNameCounts.version). */
  readonly subscribedTopicNamesVersion: number;
}

/** A member of such a group, as far as its subscription goes. */
interface NameSubscriber {
  readonly subscribedTopicNames: ReadonlySet<string>;
}

/** One group's topics subscribed by name that exist, with what they were found from. */
interface Kept {
  /** The group's `subscribedTopicNamesVersion` and the registry's topic count then. */
  version: number;
  topicCount: number;
  /** The subscribed names that are topics, in the group's order, and each one's partition count. */
  topics: string[];
  partitions: number[];
  /** `topicsMetadataHash(topics)`, once asked. */
  hash: number | undefined;
}

/**
 * The topics a consumer or share group subscribes to by name that exist (Kafka's subscription metadata, which
 * keeps only the topics the metadata image has), kept per group: a member may name 100,000 topics that
 * do not exist, and what is asked of the group on every heartbeat — its metadata hash, its
 * subscription for a new target — then costs as many lookups as there are topics, not names. The
 * kept topics are given while the group subscribes to the same names (its version did not move), no
 * topic was created (the registry holds as many: topics are never deleted) and each kept topic has the
 * partition count it had (one grown or gone differs), so they are always what a walk of every name
 * would find; the names are walked again only after a subscription changed or a topic was created.
 */
export class ExistingSubscribedTopics {
  private readonly kept = new WeakMap<NameSubscribedGroup, Kept>();

  constructor(
    private readonly partitionsOf: PartitionCountLookup,
    private readonly topicCount: () => number,
  ) {}

  /** The group's topics subscribed by name that exist, in the order the group counts them. */
  of(group: NameSubscribedGroup): readonly string[] {
    return this.keptFor(group).topics;
  }

  /** `metadataHash` of those topics: what a steady heartbeat compares with the group's. */
  hashOf(group: NameSubscribedGroup): number {
    const kept = this.keptFor(group);
    return (kept.hash ??= topicsMetadataHash(kept.topics, this.partitionsOf));
  }

  /**
   * The topics subscribed by name that exist once `before` is replaced by `after` (either absent: a
   * member joins or leaves), without changing the group (Kafka's `computeSubscribedTopicNames` then its
   * metadata): a kept topic stays unless `before` was its only subscriber and `after` drops it, and the
   * names only `after` brings are looked up.
   */
  after(group: NameSubscribedGroup, before?: NameSubscriber, after?: NameSubscriber): string[] {
    const counts = group.subscribedTopicNames;
    const dropping = before?.subscribedTopicNames;
    const adding = after?.subscribedTopicNames;
    const topics: string[] = [];
    for (const topic of this.of(group))
      if (dropping === undefined || !dropping.has(topic) || adding?.has(topic) || counts.get(topic)! > 1)
        topics.push(topic);
    if (adding !== undefined && adding !== dropping)
      for (const topic of adding) if (!counts.has(topic) && this.partitionsOf(topic) !== undefined) topics.push(topic);
    return topics;
  }

  private keptFor(group: NameSubscribedGroup): Kept {
    const kept = this.kept.get(group);
    const version = group.subscribedTopicNamesVersion;
    const topicCount = this.topicCount();
    if (kept !== undefined && kept.version === version && kept.topicCount === topicCount && this.sameSizes(kept))
      return kept;
    const topics: string[] = [];
    const partitions: number[] = [];
    for (const topic of group.subscribedTopicNames.keys()) {
      const count = this.partitionsOf(topic);
      if (count === undefined) continue;
      topics.push(topic);
      partitions.push(count);
    }
    const found: Kept = { version, topicCount, topics, partitions, hash: undefined };
    this.kept.set(group, found);
    return found;
  }

  private sameSizes(kept: Kept): boolean {
    const { topics, partitions } = kept;
    for (let i = 0; i < topics.length; i++) if (this.partitionsOf(topics[i]) !== partitions[i]) return false;
    return true;
  }
}
