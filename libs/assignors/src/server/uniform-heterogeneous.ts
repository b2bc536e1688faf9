/**
 * Kafka's `UniformHeterogeneousAssignmentBuilder`: members subscribe to different topics. Partitions of
 * topics a member no longer subscribes to are revoked; the unowned partitions of each topic go, one by
 * one, to its least loaded subscriber; then each topic with two or more subscribers is rebalanced by
 * moving partitions from its most to its least loaded subscribers, topic after topic (at most 16 rounds)
 * until a round moves nothing. Topics go by partitions per subscriber (descending), then subscriber
 * count (ascending), then topic id (`Uuid.compareTo`); members by partition count, then member-map order.
 */
import { AssignmentShape } from './assignment-shape';
import { capacityForEntries } from './java-hash-table';
import type { GroupModel } from './group-model';
import { MemberBalancer } from './member-balancer';
import { sameEntries, type MemberResult } from './uniform-homogeneous';

const MAX_ITERATION_COUNT = 16;

export function assignHeterogeneous(model: GroupModel): MemberResult[] {
  const { members, topics, table } = model;
  const subscribers: number[][] = topics.map(() => []);
  const subscribedTopics: number[] = [];
  members.forEach((member, m) => {
    for (const t of member.subscribed) {
      if (subscribers[t].length === 0) subscribedTopics.push(t);
      subscribers[t].push(m);
    }
  });
  if (subscribedTopics.length === 0)
    return members.map((member) => ({ entries: [], changed: member.owned.length > 0 }));

  const sizes = new Int32Array(members.length);
  const owners: (Int32Array | null)[] = topics.map((topic, t) =>
    subscribers[t].length > 0 ? new Int32Array(topic.partitions).fill(-1) : null,
  );
  const shapes: (AssignmentShape | null)[] = new Array(members.length).fill(null);

  const compareTopics = (a: number, b: number): number => {
    const perSubscriberA = topics[a].partitions / subscribers[a].length;
    const perSubscriberB = topics[b].partitions / subscribers[b].length;
    if (perSubscriberA !== perSubscriberB) return perSubscriberB < perSubscriberA ? -1 : 1;
    return subscribers[a].length - subscribers[b].length || table.compare(a, b);
  };

  // maybeRevokePartitions
  members.forEach((member, m) => {
    for (const { topic, partitions } of member.owned) {
      if (member.subscribed.has(topic)) {
        sizes[m] += partitions.length;
        const owner = owners[topic] as Int32Array;
        for (const p of partitions) owner[p] = m;
      } else {
        (shapes[m] ??= new AssignmentShape(member.owned)).removeTopic(topic);
      }
    }
  });

  const assignPartition = (topic: number, partition: number, m: number): void => {
    const owner = owners[topic] as Int32Array;
    const previous = owner[partition];
    if (previous !== -1) {
      (shapes[previous] ??= new AssignmentShape(members[previous].owned)).remove(topic, partition);
      sizes[previous]--;
    }
    const count = subscribers[topic].length;
    const estimated = Math.floor((topics[topic].partitions + count - 1) / count);
    (shapes[m] ??= new AssignmentShape(members[m].owned)).add(topic, partition, capacityForEntries(estimated));
    owner[partition] = m;
    sizes[m]++;
  };

  const balancer = new MemberBalancer(sizes);
  // Each owner's run of the topic's partitions sorted by (owner, partition): [start, end) by owner + 1
  // (slot 0 for no owner), reset after each topic through the list of owners touched.
  const runStart = new Int32Array(members.length + 1).fill(-1);
  const runEnd = new Int32Array(members.length + 1);
  const touched: number[] = [];

  // assignRemainingPartitions
  const unassigned = new Map<number, number[]>();
  for (const t of subscribedTopics) {
    const owner = owners[t] as Int32Array;
    const list: number[] = [];
    for (let p = 0; p < owner.length; p++) if (owner[p] === -1) list.push(p);
    if (list.length > 0) unassigned.set(t, list);
  }
  for (const t of [...unassigned.keys()].sort(compareTopics)) {
    balancer.initialize(subscribers[t]);
    for (const p of unassigned.get(t) as number[]) assignPartition(t, p, balancer.nextLeastLoadedMember());
  }

  // balance
  const movable = subscribedTopics.filter((t) => subscribers[t].length >= 2).sort(compareTopics);
  if (movable.length > 0) balanceTopics(movable);

  function balanceTopics(sortedTopics: number[]): void {
    let lastRebalanceTopicIndex = -1;
    for (let i = 0; i < MAX_ITERATION_COUNT; i++) {
      for (let index = 0; index < sortedTopics.length; index++) {
        if (index === lastRebalanceTopicIndex) return;
        const moved = balanceTopic(sortedTopics[index]);
        if (moved > 0 || lastRebalanceTopicIndex === -1) lastRebalanceTopicIndex = index;
      }
    }
  }

  function balanceTopic(topic: number): number {
    if (balancer.initialize(subscribers[topic]) <= 1) return 0;
    const owner = owners[topic] as Int32Array;
    const count = owner.length;
    // Kafka sorts by owner, then partition: one numeric key each, sorted natively.
    const keys = new Float64Array(count);
    for (let p = 0; p < count; p++) keys[p] = (owner[p] + 1) * count + p;
    keys.sort();
    const partitions = new Int32Array(count);
    for (let i = 0; i < count; i++) {
      const slot = Math.floor(keys[i] / count);
      partitions[i] = keys[i] - slot * count;
      if (runStart[slot] === -1) {
        runStart[slot] = i;
        touched.push(slot);
      }
      runEnd[slot] = i + 1;
    }
    const start = { get: (m: number): number => runStart[m + 1] };
    const end = {
      get: (m: number): number | undefined => (runStart[m + 1] === -1 ? undefined : runEnd[m + 1]),
      set: (m: number, value: number): void => {
        runEnd[m + 1] = value;
      },
    };
    try {
      return balanceRuns(topic, partitions, start, end);
    } finally {
      for (const slot of touched) runStart[slot] = -1;
      touched.length = 0;
    }
  }

  function balanceRuns(
    topic: number,
    partitions: Int32Array,
    start: { get(m: number): number },
    end: { get(m: number): number | undefined; set(m: number, value: number): void },
  ): number {
    let moved = 0;
    while (!balancer.isBalanced()) {
      let mostLoaded = -1;
      for (;;) {
        mostLoaded = balancer.nextMostLoadedMember();
        if (mostLoaded === -1) break;
        const last = end.get(mostLoaded);
        if (last === undefined || last - start.get(mostLoaded) <= 0) {
          balancer.excludeMostLoadedMember();
          continue;
        }
        break;
      }
      if (mostLoaded === -1) break;
      const last = end.get(mostLoaded) as number;
      const partition = partitions[last - 1];
      end.set(mostLoaded, last - 1);
      const leastLoaded = balancer.nextLeastLoadedMember();
      if (balancer.isBalanced()) break;
      assignPartition(topic, partition, leastLoaded);
      moved++;
    }
    return moved;
  }

  return members.map((member, m) => {
    const shape = shapes[m];
    if (shape === null) return { entries: member.owned, changed: false };
    const entries = shape.entries(topics);
    return sameEntries(entries, member.owned) ? { entries: member.owned, changed: false } : { entries, changed: true };
  });
}
