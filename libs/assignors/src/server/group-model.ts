/**
 * A consumer group as Kafka's server assignors walk it: topics numbered with their Kafka ids
 * (`UUID.nameUUIDFromBytes` of the name), members in the order Java iterates the member map, and each
 * member's current target in the order `Assignment.fromRecord` builds it (a default `HashMap<Uuid, _>`
 * filled in the record's order, each topic's partitions a `new HashSet<>(list)`).
 */
import { javaStringHashCode, KafkaError, type TopicPartitions } from '@cohort/protocol';
import type { ClusterView } from '../api/partition-assignor';
import type { ConsumerGroupMemberSpec, ConsumerGroupSpec } from './consumer-group-assignor';
import {
  copyConstructorCapacity,
  firstTableSize,
  hashSetOrderOfPartitions as importedHashSetOrder,
  javaIterationOrder,
  MIN_TREEIFY_CAPACITY,
} from './java-hash-table';
import { compareUuids, topicIdOf, uuidHashCode, type JavaUuid } from './java-uuid';
import { readOwnedKept } from './owned-target-reading';
import { givenOrder, memberIdHashes, memberMapOrder } from './member-map-order';
import { distinctNameCount } from './subscription-size';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, which stays a call in the per-partition loops below.
const hashSetOrderOfPartitions = importedHashSetOrder;

export interface ModelTopic {
  name: string;
  id: JavaUuid;
  idHash: number;
  /** -1 when the topic does not exist (not in partitionsPerTopic). */
  partitions: number;
}

export interface OwnedTopic {
  topic: number;
  /** In Java's iteration order. */
  partitions: number[];
  /** The caller's entry these partitions came from, in the same order. */
  original?: TopicPartitions;
}

export interface ModelMember {
  memberId: string;
  instanceId: string | null;
  spec: ConsumerGroupMemberSpec;
  /**
   * Subscribed topics that exist, each once, in the order the member names them: an array, not a
   * set (thousands of members, a handful of topics each: a set apiece costs more than the builder).
   */
  subscribed: readonly number[];
  /** Current target, in Java's iteration order; partitions beyond a topic's size dropped. */
  owned: OwnedTopic[];
}

/**
 * How to read a group. The defaults are what a coordinator holds; Kafka's own tests build their groups
 * differently (fixed topic ids, a TreeMap of members, LinkedHashMaps of partitions), and the ported
 * tests say so here.
 */
export interface GroupModelOptions {
  topicId?: (name: string) => JavaUuid;
  /** 'hash-map' (default): Java's HashMap order of member ids; 'given': the spec's order. */
  memberOrder?: 'hash-map' | 'given';
  /** 'from-record' (default): as Assignment.fromRecord iterates the target; 'given': the spec's order. */
  targetOrder?: 'from-record' | 'given';
  /** Kafka's tests may name the builder; a coordinator derives it from the subscriptions. */
  subscriptionType?: 'homogeneous' | 'heterogeneous';
  /** Share groups (KIP-932): members may share a partition, so targets need not be disjoint. */
  sharedTargets?: boolean;
}

export interface GroupModel {
  table: TopicTable;
  topics: ModelTopic[];
  /** Members in Java's iteration order of the member map. */
  members: ModelMember[];
  /** Kafka's SubscriptionType: every member subscribes to the same topic names. */
  homogeneous: boolean;
  /**
   * Per topic, per partition: the index of the member whose current target holds it, -1 for none
   * (Kafka's `isPartitionAssigned`); null when no member holds anything or targets may be shared.
   */
  owners: (Int32Array | null)[] | null;
  /**
   * Per member (in the order of `members`): the number `owners` holds for it; absent, its index. A
   * kept model (kept-uniform-group.ts) keeps each member's number from call to call, so a join, which
   * moves the members after it in the member map's order, does not renumber every partition's owner.
   */
  ownerIds?: Int32Array;
  /** Per member (in the order of `members`), its index in the spec's list. */
  specIndex: Int32Array;
  /** Per member of the spec (in the spec's order): its id, read once (a kept group keeps the list). */
  memberIds: readonly string[];
  /** Per member of the spec (in the spec's order): its id's Java hash, when members are in the member map's order. */
  idHashes?: Int32Array;
  /**
   * Set on a model kept between calls (kept-uniform-group.ts), per member: the entries to hand back
   * while its target is unchanged (filled in by the assignor); the partitions its target holds when
   * each is of a subscribed topic, else -1 (the homogeneous builder skips walking its target); the
   * members the last assignment gave a new target, ascending (so the kept group reads back only
   * those, not every member's entry).
   */
  kept?: { wires: (TopicPartitions[] | undefined)[]; ownedTotals: Int32Array; changed: number[] };
}

/** Topic ids are pure functions of names; a node sees the same names again and again. */
const idCache = new Map<string, JavaUuid>();
const ID_CACHE_LIMIT = 100_000;

export function cachedTopicId(name: string): JavaUuid {
  let id = idCache.get(name);
  if (id === undefined) {
    id = topicIdOf(name);
    if (idCache.size >= ID_CACHE_LIMIT) idCache.clear();
    idCache.set(name, id);
  }
  return id;
}

export class TopicTable {
  readonly topics: ModelTopic[] = [];
  private readonly numbers = new Map<string, number>();

  constructor(
    private cluster: ClusterView,
    private readonly idOf: (name: string) => JavaUuid = cachedTopicId,
  ) {}

  /**
   * Kept for a later call (kept-uniform-group.ts), which has checked that every topic numbered so far
   * has the same partition count in `cluster`: topics it meets first are counted in its cluster.
   */
  rebind(cluster: ClusterView): void {
    this.cluster = cluster;
  }

  /** Whether `name` is a topic of the cluster (one that is not gets nothing, and is not numbered by the model). */
  exists(name: string): boolean {
    return Object.prototype.hasOwnProperty.call(this.cluster.partitionsPerTopic, name);
  }

  numberOf(name: string): number {
    let n = this.numbers.get(name);
    if (n === undefined) {
      n = this.topics.length;
      const id = this.idOf(name);
      const count = Object.prototype.hasOwnProperty.call(this.cluster.partitionsPerTopic, name)
        ? this.cluster.partitionsPerTopic[name]
        : -1;
      this.topics.push({ name, id, idHash: uuidHashCode(id), partitions: count });
      this.numbers.set(name, n);
    }
    return n;
  }

  known(name: string): number | undefined {
    return this.numbers.get(name);
  }

  compare(a: number, b: number): number {
    return compareUuids(this.topics[a].id, this.topics[b].id);
  }
}

export function sameOrder(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

function sameNames(a: readonly string[], b: readonly string[]): boolean {
  if (a === b) return true;
  // Members of one application send their topics in one order: compare in place first.
  if (a.length === b.length) {
    let i = 0;
    while (i < a.length && a[i] === b[i]) i++;
    if (i === a.length) return true;
  }
  const set = new Set(a);
  const other = new Set(b);
  if (set.size !== other.size) return false;
  for (const name of other) if (!set.has(name)) return false;
  return true;
}

/** Kafka's `ModernGroup.subscriptionType`: homogeneous when every member subscribes to the same names. */
export function isHomogeneous(members: readonly ConsumerGroupMemberSpec[]): boolean {
  for (let m = 1; m < members.length; m++)
    if (!sameNames(members[0].subscribedTopics, members[m].subscribedTopics)) return false;
  return true;
}

const NOTHING_OWNED: OwnedTopic[] = [];

function inRange(partitions: readonly number[], size: number): boolean {
  for (let i = 0; i < partitions.length; i++) if (!(partitions[i] >= 0 && partitions[i] < size)) return false;
  return true;
}

/**
 * A member's current target, in Java's order unless not `fromRecord`. `kept`: its reading may be kept
 * for later calls (owned-target-reading.ts), which needs Java's order and topic ids derived from names.
 */
export function readOwned(
  member: ConsumerGroupMemberSpec,
  table: TopicTable,
  fromRecord: boolean,
  kept: boolean,
): OwnedTopic[] {
  if (member.assignment.length === 0) return NOTHING_OWNED;
  return kept
    ? readOwnedKept(member.assignment, table, readTarget)
    : readTarget(member.assignment, table, false, !fromRecord);
}

/**
 * A member's target in `table`: in Java's order, unless `asGiven`; partitions beyond a topic's size
 * dropped, unless `unbounded` (a reading kept for later calls, which check the sizes themselves).
 */
function readTarget(
  assignment: readonly TopicPartitions[],
  table: TopicTable,
  unbounded: boolean,
  asGiven = false,
): OwnedTopic[] {
  const entries: OwnedTopic[] = [];
  for (const entry of assignment) {
    if (entry.partitions.length === 0) continue;
    const topic = table.numberOf(entry.topic);
    const size = unbounded ? Infinity : table.topics[topic].partitions;
    const partitions = inRange(entry.partitions, size)
      ? (entry.partitions as number[])
      : entry.partitions.filter((p) => p >= 0 && p < size);
    if (partitions.length === 0) continue;
    const ordered = asGiven ? partitions : hashSetOrderOfPartitions(partitions);
    // The entry itself, when Java's order is its order: an unchanged target goes back as it came.
    entries.push({ topic, partitions: ordered, original: ordered === entry.partitions ? entry : undefined });
  }
  if (entries.length < 2 || asGiven) return entries;
  return javaIterationOrder(entries.map((entry) => table.topics[entry.topic].idHash)).map((i) => entries[i]);
}

/**
 * Records one member's target in `owners` (per topic, made at the topic's first owned partition),
 * throwing when another member's target holds one of its partitions: the input is no group's state.
 * Called as each member is read, while its target's arrays are still in the cache.
 */
function markOwned(
  owners: (Int32Array | null)[],
  members: readonly ModelMember[],
  m: number,
  topics: readonly ModelTopic[],
): void {
  const member = members[m];
  const owned = member.owned;
  for (let i = 0; i < owned.length; i++) {
    const { topic, partitions } = owned[i];
    while (owners.length <= topic) owners.push(null);
    let owner = owners[topic];
    if (owner === null) owner = owners[topic] = new Int32Array(topics[topic].partitions).fill(-1);
    for (let k = 0; k < partitions.length; k++) {
      const p = partitions[k];
      if (owner[p] !== -1 && owner[p] !== m)
        throw KafkaError.of(
          'INVALID_REQUEST',
          `partition ${topics[topic].name}-${p} is in the targets of '${members[owner[p]].memberId}' and '${member.memberId}'`,
        );
      owner[p] = m;
    }
  }
}

/** existingTopics' topics as found, before they are copied into a list of their own length. */
let foundTopics = new Int32Array(64);

/**
 * The topics of `names` that exist, each once, in the order first named, in a list of exactly their
 * number: a list grown by push gets room for sixteen at its first, and a group whose members subscribe
 * to a few topics each (each member a list of its own) spent a third of its reading on that room.
 * A name of no topic is passed over before it is numbered (as Kafka's `TopicIds` skips the names its
 * metadata image lacks), so it costs a lookup, not a topic id (an MD5) and a place in the model.
 */
function existingTopics(names: readonly string[], table: TopicTable): number[] {
  if (foundTopics.length < names.length) foundTopics = new Int32Array(names.length);
  const found = foundTopics;
  let n = 0;
  // A name given twice: a set only for a long list (a regex's topics), a scan of a short one.
  const seen = names.length > 16 ? new Set<number>() : null;
  for (let i = 0; i < names.length; i++) {
    if (!table.exists(names[i])) continue;
    const topic = table.numberOf(names[i]);
    if (seen === null ? foundBefore(found, n, topic) : seen.has(topic)) continue;
    seen?.add(topic);
    found[n++] = topic;
  }
  const topics = new Array<number>(n);
  for (let i = 0; i < n; i++) topics[i] = found[i];
  return topics;
}

function foundBefore(found: Int32Array, n: number, topic: number): boolean {
  for (let i = 0; i < n; i++) if (found[i] === topic) return true;
  return false;
}

export function readGroupModel(
  group: ConsumerGroupSpec,
  cluster: ClusterView,
  options: GroupModelOptions = {},
): GroupModel {
  const table = new TopicTable(cluster, options.topicId);
  const specs = group.members;
  const ids = specs.map((member) => member.memberId);
  const idHashes = options.memberOrder === 'given' ? undefined : memberIdHashes(ids);
  const order = idHashes === undefined ? givenOrder(ids) : memberMapOrder(ids, idHashes);
  const fromRecord = options.targetOrder !== 'given';
  const kept = fromRecord && options.topicId === undefined;
  let previousNames: readonly string[] | null = null;
  let previous: readonly number[] = [];
  let anyOwned = false;
  const owners: (Int32Array | null)[] = [];
  const members = new Array<ModelMember>(order.length);
  for (let m = 0; m < order.length; m++) {
    const spec = specs[order[m]];
    // Members subscribing alike share one set (read-only from here on).
    let subscribed = previous;
    if (previousNames === null || !sameOrder(previousNames, spec.subscribedTopics)) {
      subscribed = existingTopics(spec.subscribedTopics, table);
      previous = subscribed;
      previousNames = spec.subscribedTopics;
    }
    if (spec.assignment.length > 0) anyOwned = true;
    members[m] = {
      memberId: spec.memberId,
      instanceId: spec.instanceId ?? null,
      spec,
      subscribed,
      owned: readOwned(spec, table, fromRecord, kept),
    };
    if (!options.sharedTargets && members[m].owned.length > 0) markOwned(owners, members, m, table.topics);
  }
  // Every topic numbered has an entry (null: nobody holds any of its partitions).
  while (owners.length < table.topics.length) owners.push(null);
  const homogeneous =
    options.subscriptionType === undefined ? isHomogeneous(specs) : options.subscriptionType === 'homogeneous';
  return {
    table,
    topics: table.topics,
    members,
    homogeneous,
    owners: anyOwned && !options.sharedTargets ? owners : null,
    specIndex: order,
    memberIds: ids,
    idHashes,
  };
}

/**
 * A member's `subscribedTopicIds()` in Kafka's iteration order: `TopicIds` walks the member's names as
 * `new HashSet<>(names)` holds them (ConsumerGroupMember) and skips names no topic has. The set is
 * sized for every name, but the names of no topic do not change where the others are walked once the
 * table has 64 buckets or more (it never grows then): only the topics that exist are ordered, in the
 * table sized for all.
 */
export function topicIdsInJavaOrder(member: ModelMember, table: TopicTable): number[] {
  const capacity = copyConstructorCapacity(distinctNameCount(member.spec.subscribedTopics));
  if (firstTableSize(capacity) >= MIN_TREEIFY_CAPACITY) {
    const subscribed = member.subscribed;
    const hashes = subscribed.map((topic) => javaStringHashCode(table.topics[topic].name));
    return javaIterationOrder(hashes, capacity).map((i) => subscribed[i]);
  }
  // A table under 64 buckets grows when a chain reaches 9 (treeifyBin), which names of no topic count in.
  const names = [...new Set(member.spec.subscribedTopics)];
  const nameOrder = javaIterationOrder(
    names.map((name) => javaStringHashCode(name)),
    copyConstructorCapacity(names.length),
  );
  const topics: number[] = [];
  for (const i of nameOrder) if (table.exists(names[i])) topics.push(table.numberOf(names[i]));
  return topics;
}

/**
 * The same topics as `new HashSet<>(subscribedTopicIds())` iterates them (the homogeneous uniform
 * builder): by `Uuid.hashCode`, in a table sized for all the names, unknown ones included.
 */
export function subscribedTopicsInJavaOrder(member: ModelMember, table: TopicTable): number[] {
  const topics = topicIdsInJavaOrder(member, table);
  const idOrder = javaIterationOrder(
    topics.map((topic) => table.topics[topic].idHash),
    copyConstructorCapacity(distinctNameCount(member.spec.subscribedTopics)),
  );
  return idOrder.map((i) => topics[i]);
}
