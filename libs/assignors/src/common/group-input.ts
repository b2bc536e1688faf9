/**
 * The normalized form every built-in assignor works on. Partitions become dense integer ids in
 * (topic, partition) order — topic names sorted as Java's String.compareTo sorts them, which is what
 * JavaScript's default string comparison does — so the algorithms can use typed arrays instead of
 * maps of objects. Only topics that some member subscribes to and that have partitions take part, as
 * in Kafka's AbstractPartitionAssignor.
 */
import type { Subscription, TopicPartitions } from '@cohort/protocol';
import type { ClusterView, MemberSubscription } from '../api/partition-assignor';
import { validateAssignorInput, type InputValidationOptions } from '../validation/validate-input';
import { isValidatedInput } from '../validation/validated-inputs';
import { getOwn } from './own-property';

export interface GroupTopics {
  /** Subscribed topics with at least one partition, sorted. */
  readonly names: string[];
  readonly index: Map<string, number>;
  readonly counts: Int32Array;
  /** base[t] is the id of partition 0 of topic t; base[T] is the number of partitions. */
  readonly base: Int32Array;
  readonly total: number;
}

export interface GroupMember {
  /** Position in the input: the order in which the leader received the members. */
  readonly index: number;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** A non-empty rack id, or null. */
  readonly rackId: string | null;
  /** The subscribed topic names without duplicates, in the order given. */
  readonly topicNames: readonly string[];
  readonly topicNameSet: ReadonlySet<string>;
  /** Indices of the subscribed topics that take part, ascending. */
  readonly topics: Int32Array;
  readonly subscription: Subscription;
}

export interface GroupInput {
  readonly topics: GroupTopics;
  readonly members: GroupMember[];
  readonly cluster: ClusterView;
}

export function readGroup(cluster: ClusterView, members: MemberSubscription[], options?: InputValidationOptions): GroupInput {
  if (!isValidatedInput(cluster, members)) validateAssignorInput(cluster, members, options);
  const subscribed = new Set<string>();
  let previousList: readonly string[] | null = null;
  for (const member of members) {
    const list = member.subscription.topics;
    if (list === previousList) continue; // members often share one topic list
    previousList = list;
    for (const topic of list) subscribed.add(topic);
  }
  const names = [...subscribed].filter((topic) => (getOwn(cluster.partitionsPerTopic, topic) ?? 0) > 0).sort();
  const index = new Map(names.map((name, t) => [name, t] as const));
  const counts = Int32Array.from(names, (name) => getOwn(cluster.partitionsPerTopic, name) as number);
  const base = new Int32Array(names.length + 1);
  for (let t = 0; t < names.length; t++) base[t + 1] = base[t] + counts[t];
  const topics: GroupTopics = { names, index, counts, base, total: base[names.length] };
  // Large groups mostly share a few subscriptions: normalize each distinct one once.
  const normalized = new Map<string, Pick<GroupMember, 'topicNames' | 'topicNameSet' | 'topics'>>();
  const byArray = new Map<readonly string[], Pick<GroupMember, 'topicNames' | 'topicNameSet' | 'topics'>>();
  const normalize = (list: readonly string[]): Pick<GroupMember, 'topicNames' | 'topicNameSet' | 'topics'> => {
    let found = byArray.get(list);
    if (found) return found;
    const key = list.join('\u0000');
    found = normalized.get(key);
    if (!found) {
      const topicNameSet = new Set(list);
      const taking: number[] = [];
      for (const name of topicNameSet) {
        const t = index.get(name);
        if (t !== undefined) taking.push(t);
      }
      found = { topicNames: [...topicNameSet], topicNameSet, topics: Int32Array.from(taking).sort() };
      normalized.set(key, found);
    }
    byArray.set(list, found);
    return found;
  };
  return {
    topics,
    cluster,
    members: members.map((member, memberIndex) => {
      const { topicNames, topicNameSet, topics: taking } = normalize(member.subscription.topics);
      return {
        index: memberIndex,
        memberId: member.memberId,
        groupInstanceId: member.groupInstanceId ?? null,
        rackId: member.subscription.rackId ? member.subscription.rackId : null,
        topicNames,
        topicNameSet,
        topics: taking,
        subscription: member.subscription,
      };
    }),
  };
}

/** topicOf[id] = topic index of partition id. */
export function topicOfPartitions(topics: GroupTopics): Int32Array {
  const topicOf = new Int32Array(topics.total);
  for (let t = 0; t < topics.names.length; t++) topicOf.fill(t, topics.base[t], topics.base[t + 1]);
  return topicOf;
}

/** Some engines make a very long `new Array(n)` sparse (dictionary mode); lists longer than this are grown. */
const MAX_PRESIZED_LIST = 100_000;

/**
 * Partition ids of a list of (topic, partitions), in the order given, without duplicates unless the
 * caller handles them. Entries of topics that do not take part or partitions beyond the topic's count
 * are dropped (Kafka drops the former; it keeps the latter and then fails or hands out nonexistent
 * partitions, quirk Q2).
 */
export function partitionIdsOf(list: readonly TopicPartitions[] | undefined, topics: GroupTopics, dedupe = true): number[] {
  if (!list) return [];
  // Sized up front rather than grown by push: a rejoining group lists every partition here, and the
  // copies growth leaves behind are collected during the rebalance. Indexed loops: this often runs
  // on a process's first call, when iterator-based loops still run in the interpreter.
  let listed = 0;
  for (let e = 0; e < list.length; e++) listed += list[e].partitions.length;
  const ids = listed <= MAX_PRESIZED_LIST ? new Array<number>(listed) : [];
  let n = 0;
  for (let e = 0; e < list.length; e++) {
    const entry = list[e];
    const t = topics.index.get(entry.topic);
    if (t === undefined) continue;
    const count = topics.counts[t];
    const base = topics.base[t];
    const partitions = entry.partitions;
    for (let i = 0; i < partitions.length; i++) {
      const partition = partitions[i];
      if (partition < count) ids[n++] = base + partition;
    }
  }
  ids.length = n;
  if (!dedupe || ids.length < 2) return ids;
  const seen = new Set<number>();
  return ids.filter((id) => !seen.has(id) && seen.add(id) !== undefined);
}

/** Replica racks of a partition (nulls dropped, duplicates removed); empty when unknown. */
export function replicaRacks(cluster: ClusterView, topic: string, partition: number): string[] {
  const perPartition = cluster.partitionRacks ? getOwn(cluster.partitionRacks, topic) : undefined;
  const racks = perPartition?.[partition];
  if (!racks) return [];
  return [...new Set(racks.filter((rack): rack is string => rack !== null))];
}
