/**
 * The normalized form every built-in assignor works on. Partitions become dense integer ids in
 * (topic, partition) order — topic names sorted as Java's String.compareTo sorts them, which is what
 * JavaScript's default string comparison does — so the algorithms can use typed arrays instead of
 * maps of objects. Only topics that some member subscribes to and that have partitions take part, as
 * in Kafka's AbstractPartitionAssignor.
 */
import type { Subscription, TopicPartitions } from '@cohort/protocol';
import type { ClusterView, MemberSubscription } from '../api/partition-assignor';
import {
  validateAssignorInput,
  validateAssignorInputButOwnedPartitions,
  type InputValidationOptions,
} from '../validation/validate-input';
import { isValidatedInput } from '../validation/validated-inputs';
import { getOwn } from './own-property';
import { sameList } from './same-list';

// Read once here rather than at each use: a use of an import reads it off the other module's
// exports, a getter call in esbuild's CommonJS output (what tsx runs) and for what a package index
// re-exports in tsc's, and the code below uses it once per member, which on a process's first call
// costs as much as the work around it. The assignors' other per-member loops do the same.
const isSameList = sameList;

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

/**
 * `ownedPartitions: 'checked-when-read'`: the members' owned partitions are left out of validation, for an
 * assignor that reads them all and checks them as it does (cooperative-sticky: checkedPartitionIdsOf).
 */
export function readGroup(
  cluster: ClusterView,
  members: MemberSubscription[],
  options?: InputValidationOptions,
  ownedPartitions: 'validated' | 'checked-when-read' = 'validated',
): GroupInput {
  if (!isValidatedInput(cluster, members)) {
    if (ownedPartitions === 'validated') validateAssignorInput(cluster, members, options);
    else validateAssignorInputButOwnedPartitions(cluster, members, options);
  }
  // Each step is a function of its own, and this one has no loop: it runs once per call and stays
  // cheap to compile, while the loops below are compiled on their own as they get hot.
  const likePrevious = new Uint8Array(members.length);
  const topics = groupTopics(cluster, subscribedTopics(members, likePrevious));
  return { topics, cluster, members: groupMembers(members, new Subscriptions(topics.index), likePrevious) };
}

/**
 * Every topic some member subscribes to; likePrevious[m] = 1 when member m's topic list equals the
 * previous member's, so that the lists of a large group are compared once, here.
 */
function subscribedTopics(members: MemberSubscription[], likePrevious: Uint8Array): Set<string> {
  const subscribed = new Set<string>();
  let previousList: readonly string[] | null = null;
  for (let m = 0; m < members.length; m++) {
    const list = members[m].subscription.topics;
    // Members often share one topic list, or equal ones. previousList equals member m - 1's list.
    if (isSameList(list, previousList)) {
      likePrevious[m] = 1;
      continue;
    }
    previousList = list;
    for (let i = 0; i < list.length; i++) subscribed.add(list[i]);
  }
  return subscribed;
}

function groupTopics(cluster: ClusterView, subscribed: Set<string>): GroupTopics {
  const names = [...subscribed].filter((topic) => (getOwn(cluster.partitionsPerTopic, topic) ?? 0) > 0).sort();
  const index = new Map(names.map((name, t) => [name, t] as const));
  const counts = Int32Array.from(names, (name) => getOwn(cluster.partitionsPerTopic, name) as number);
  const base = new Int32Array(names.length + 1);
  for (let t = 0; t < names.length; t++) base[t + 1] = base[t] + counts[t];
  return { names, index, counts, base, total: base[names.length] };
}

type NormalizedSubscription = Pick<GroupMember, 'topicNames' | 'topicNameSet' | 'topics'>;

/** Large groups mostly share a few subscriptions: each distinct one is normalized once. */
class Subscriptions {
  private readonly byKey = new Map<string, NormalizedSubscription>();
  private readonly byArray = new Map<readonly string[], NormalizedSubscription>();

  constructor(private readonly index: Map<string, number>) {}

  normalize(list: readonly string[]): NormalizedSubscription {
    let found = this.byArray.get(list);
    if (found) return found;
    const key = list.join('\u0000');
    found = this.byKey.get(key);
    if (!found) {
      const topicNameSet = new Set(list);
      const taking: number[] = [];
      for (const name of topicNameSet) {
        const t = this.index.get(name);
        if (t !== undefined) taking.push(t);
      }
      found = { topicNames: [...topicNameSet], topicNameSet, topics: Int32Array.from(taking).sort() };
      this.byKey.set(key, found);
    }
    this.byArray.set(list, found);
    return found;
  }
}

function groupMembers(
  members: MemberSubscription[],
  subscriptions: Subscriptions,
  likePrevious: Uint8Array,
): GroupMember[] {
  const grouped: GroupMember[] = [];
  let normalized: NormalizedSubscription | null = null;
  for (let memberIndex = 0; memberIndex < members.length; memberIndex++) {
    const member = members[memberIndex];
    const subscription = member.subscription;
    if (normalized === null || likePrevious[memberIndex] === 0)
      normalized = subscriptions.normalize(subscription.topics);
    const { topicNames, topicNameSet, topics } = normalized;
    grouped.push({
      index: memberIndex,
      memberId: member.memberId,
      groupInstanceId: member.groupInstanceId ?? null,
      rackId: subscription.rackId ? subscription.rackId : null,
      topicNames,
      topicNameSet,
      topics,
      subscription,
    });
  }
  return grouped;
}

/** topicOf[id] = topic index of partition id. */
export function topicOfPartitions(topics: GroupTopics): Int32Array {
  const topicOf = new Int32Array(topics.total);
  for (let t = 0; t < topics.names.length; t++) topicOf.fill(t, topics.base[t], topics.base[t + 1]);
  return topicOf;
}

/** Some engines make a very long `new Array(n)` sparse (dictionary mode); lists longer than this are grown. */
export const MAX_PRESIZED_LIST = 100_000;

/**
 * Partition ids of a list of (topic, partitions), in the order given, without duplicates unless the
 * caller handles them. Entries of topics that do not take part or partitions beyond the topic's count
 * are dropped (Kafka drops the former; it keeps the latter and then fails or hands out nonexistent
 * partitions, quirk Q2).
 */
export function partitionIdsOf(
  list: readonly TopicPartitions[] | undefined,
  topics: GroupTopics,
  dedupe = true,
): number[] {
  if (!list) return [];
  // Sized up front, at one partition per entry (what large groups list: one partition of each of
  // many topics), rather than grown from empty: a rejoining group lists every partition here, and
  // the copies growth leaves behind are collected during the rebalance. A list with more grows past
  // that. One indexed loop: this often runs on a process's first call, in the interpreter.
  const ids = list.length <= MAX_PRESIZED_LIST ? new Array<number>(list.length) : [];
  let n = 0;
  const { names, counts, base: bases } = topics;
  // Lists usually name topics in ascending order (results list them so), each once or a few times
  // in a row: try the topic after the last one, then the same, before a lookup in the index.
  let t = -1;
  for (let e = 0; e < list.length; e++) {
    const entry = list[e];
    const topic = entry.topic;
    if (names[t + 1] === topic) t++;
    else if (t < 0 || names[t] !== topic) {
      const found = topics.index.get(topic);
      if (found === undefined) continue;
      t = found;
    }
    const count = counts[t];
    const base = bases[t];
    const partitions = entry.partitions;
    for (let i = 0; i < partitions.length; i++) {
      const partition = partitions[i];
      if (partition < count) ids[n++] = base + partition;
    }
  }
  // The length setter is a call of its own: only when something was dropped.
  if (n !== ids.length) ids.length = n;
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
