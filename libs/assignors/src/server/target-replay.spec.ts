// A changed member's target is read back in Java's order without replaying hash tables, except where a
// treeifyBin resize could interfere. Checked here against the same changes replayed op by op through
// JavaHashTable (itself checked against java.util.HashMap in java-hash-table.oracle.spec.ts): many
// topics in one map, nine partitions in one bucket, sets emptied and created again, removes and re-adds.
import { seededRandom, type RandomInt } from '../common/seeded-random';
import type { ModelTopic, OwnedTopic } from './group-model';
import { copyConstructorCapacity, JavaHashTable } from './java-hash-table';
import { topicIdOf, uuidHashCode } from './java-uuid';
import { TargetLog } from './member-target-log';
import { freshOneTopicTarget } from './fresh-target';
import { freshSmallTarget } from './fresh-small-target';
import { TargetReplay } from './target-replay';

type Op = { kind: 'add' | 'remove'; topic: number; partition: number } | { kind: 'removeTopic'; topic: number };

interface JavaSet {
  table: JavaHashTable;
  handles: Map<number, number>;
  valueOf: number[];
}

/** The member's HashMap<Uuid, HashSet<Integer>> through the same changes, one JavaHashTable each. */
function replayedThroughTables(topics: ModelTopic[], owned: OwnedTopic[], ops: Op[], newSetCapacity: Int32Array) {
  const map = new JavaHashTable(owned.length);
  const mapHandles = new Map<number, number>();
  const topicOf: number[] = [];
  const sets = new Map<number, JavaSet>();
  const newSet = (capacity: number | undefined): JavaSet => ({
    table: new JavaHashTable(capacity),
    handles: new Map(),
    valueOf: [],
  });
  const add = (set: JavaSet, partition: number): void => {
    if (set.handles.has(partition)) return;
    const handle = set.table.insert(partition);
    set.handles.set(partition, handle);
    set.valueOf[handle] = partition;
  };
  const dropTopic = (topic: number): void => {
    map.remove(mapHandles.get(topic) as number);
    mapHandles.delete(topic);
    sets.delete(topic);
  };
  for (const { topic, partitions } of owned) {
    const handle = map.insert(topics[topic].idHash);
    mapHandles.set(topic, handle);
    topicOf[handle] = topic;
    const set = newSet(copyConstructorCapacity(partitions.length));
    for (const p of partitions) add(set, p);
    sets.set(topic, set);
  }
  for (const op of ops) {
    if (op.kind === 'add') {
      if (mapHandles.has(op.topic)) map.computeIfAbsentHit();
      else {
        const handle = map.computeIfAbsentInsert(topics[op.topic].idHash);
        mapHandles.set(op.topic, handle);
        topicOf[handle] = op.topic;
        const capacity = newSetCapacity[op.topic];
        sets.set(op.topic, newSet(capacity < 0 ? undefined : capacity));
      }
      add(sets.get(op.topic) as JavaSet, op.partition);
    } else if (op.kind === 'remove') {
      const set = sets.get(op.topic);
      const handle = set?.handles.get(op.partition);
      if (set === undefined || handle === undefined) continue;
      set.table.remove(handle);
      set.handles.delete(op.partition);
      if (set.handles.size === 0) dropTopic(op.topic);
    } else if (mapHandles.has(op.topic)) dropTopic(op.topic);
  }
  return map.order().map((handle) => {
    const topic = topicOf[handle];
    const set = sets.get(topic) as JavaSet;
    return { topic: topics[topic].name, partitions: set.table.order().map((h) => set.valueOf[h]) };
  });
}

function distinctPartitions(random: RandomInt, count: number, size: number, stride: number): number[] {
  const chosen = new Set<number>();
  for (let attempt = 0; attempt < count * 3 && chosen.size < count; attempt++)
    chosen.add((random(Math.ceil(size / stride)) * stride + random(stride === 1 ? 1 : 2)) % size);
  return [...chosen];
}

function randomCase(random: RandomInt) {
  const topicCount = 1 + random(12);
  // Some maps get ids whose hashes share a bucket, eight topics deep.
  const colliding = random(3) === 0;
  const topics: ModelTopic[] = [];
  for (let t = 0; t < topicCount; t++) {
    const id = topicIdOf(`topic-${t}-${random(1000)}`);
    const idHash = colliding ? random(4) * 16 : uuidHashCode(id);
    topics.push({ name: `topic-${t}`, id, idHash, partitions: 1 + random([8, 40, 300][random(3)]) });
  }
  // Strides of 16 and 32 put many partitions in one bucket of a small table.
  const stride = [1, 16, 32][random(3)];
  const owned: OwnedTopic[] = [];
  for (let t = 0; t < topicCount; t++) {
    if (random(2) === 0) continue;
    const partitions = distinctPartitions(random, 1 + random(14), topics[t].partitions, stride);
    owned.push({ topic: t, partitions });
  }
  const newSetCapacity = new Int32Array(topicCount).map(() => (random(2) === 0 ? -1 : random(20)));
  const ops: Op[] = [];
  const opCount = random(60);
  for (let i = 0; i < opCount; i++) {
    const topic = random(topicCount);
    const partition = distinctPartitions(random, 1, topics[topic].partitions, stride)[0];
    const kind = random(10);
    if (kind < 6) ops.push({ kind: 'add', topic, partition });
    else if (kind < 9) {
      const held = owned.find((entry) => entry.topic === topic);
      const target = held && random(2) === 0 ? held.partitions[random(held.partitions.length)] : partition;
      ops.push({ kind: 'remove', topic, partition: target });
    } else ops.push({ kind: 'removeTopic', topic });
  }
  return { topics, owned, ops, newSetCapacity };
}

function asSets(entries: { topic: string; partitions: number[] }[]): Record<string, number[]> {
  const sets: Record<string, number[]> = {};
  for (const { topic, partitions } of entries) sets[topic] = [...partitions].sort((a, b) => a - b);
  return sets;
}

describe('target replay (a changed member target in Java order)', () => {
  it('lists topics and partitions as HashMap and HashSet replayed op by op do', () => {
    const random = seededRandom(2027);
    let changed = 0;
    for (let c = 0; c < 600; c++) {
      const { topics, owned, ops, newSetCapacity } = randomCase(random);
      const log = new TargetLog(2, newSetCapacity);
      log.touch(1);
      for (const op of ops) {
        if (op.kind === 'add') log.add(1, op.topic, op.partition);
        else if (op.kind === 'remove') log.remove(1, op.topic, op.partition);
        else log.removeTopic(1, op.topic);
      }
      const owners = topics.map((topic) => new Int32Array(topic.partitions).fill(-1));
      for (const { topic, partitions } of owned) for (const p of partitions) owners[topic][p] = 1;
      const expected = replayedThroughTables(topics, owned, ops, newSetCapacity);
      const replayed = new TargetReplay(topics, log, owners).replay(1, owned);
      if (replayed === null) {
        // Null: the member holds what it held, and goes back as it came.
        expect(asSets(expected)).toEqual(asSets(owned.map((e) => ({ ...e, topic: topics[e.topic].name }))));
      } else {
        changed++;
        expect(replayed).toEqual(expected);
      }
    }
    expect(changed).toBeGreaterThan(400);
  });

  it('orders the one-topic target of a member that held nothing as the full replay does', () => {
    const random = seededRandom(848);
    let shortcut = 0;
    for (let c = 0; c < 400; c++) {
      const id = topicIdOf(`topic-${c}`);
      const topics: ModelTopic[] = [{ name: 'orders', id, idHash: uuidHashCode(id), partitions: 1 + random(600) }];
      const newSetCapacity = Int32Array.of(random(2) === 0 ? -1 : random(40));
      // Ascending runs, strided runs (nine in a bucket) and, now and then, a partition out of order.
      const stride = [1, 1, 16, 7][random(4)];
      const start = random(topics[0].partitions);
      const ops: Op[] = [];
      for (let p = start, n = random(40); n > 0 && p < topics[0].partitions; p += stride, n--)
        ops.push({ kind: 'add', topic: 0, partition: random(15) === 0 ? random(topics[0].partitions) : p });
      const log = new TargetLog(1, newSetCapacity);
      log.touch(0);
      for (const op of ops) if (op.kind === 'add') log.add(0, op.topic, op.partition);
      const fresh = freshOneTopicTarget(log, 0, topics);
      if (fresh === undefined) continue;
      shortcut++;
      expect(fresh).toEqual(replayedThroughTables(topics, [], ops, newSetCapacity));
    }
    expect(shortcut).toBeGreaterThan(150);
  });

  it('orders the target of a member that held nothing, changed over several topics, as the full replay does', () => {
    const random = seededRandom(4848);
    let shortcut = 0;
    for (let c = 0; c < 800; c++) {
      const { topics, ops, newSetCapacity } = randomCase(random);
      const log = new TargetLog(1, newSetCapacity);
      log.touch(0);
      for (const op of ops) {
        if (op.kind === 'add') log.add(0, op.topic, op.partition);
        else if (op.kind === 'remove') log.remove(0, op.topic, op.partition);
        // A member that held nothing loses a whole topic only through its partitions' removes.
      }
      const small = freshSmallTarget(log, 0, topics);
      if (small === undefined) continue;
      shortcut++;
      const expected = replayedThroughTables(
        topics,
        [],
        ops.filter((op) => op.kind !== 'removeTopic'),
        newSetCapacity,
      );
      expect(small).toEqual(expected);
    }
    expect(shortcut).toBeGreaterThan(300);
  });
});
