/**
 * The rare targets target-replay.ts cannot order by counting alone (a treeifyBin resize may have
 * happened): their map or set replayed op by op through JavaHashTable.
 */
import { JavaHashTable } from './java-hash-table';

export const MAP_PUT = 0;
export const MAP_COMPUTE = 1;
export const MAP_REMOVE = 2;

/**
 * Topics of a `HashMap<Uuid, _>` made with `initialCapacity`, through `ops` (topic * 4 + MAP_PUT,
 * MAP_COMPUTE for computeIfAbsent, hit or miss, or MAP_REMOVE), in Java's order.
 */
export function replayTopicMap(
  initialCapacity: number,
  ops: Int32Array,
  count: number,
  hashOf: (topic: number) => number,
): number[] {
  const table = new JavaHashTable(initialCapacity);
  const handles = new Map<number, number>();
  const topicOf: number[] = [];
  for (let i = 0; i < count; i++) {
    const topic = ops[i] >>> 2;
    const kind = ops[i] & 3;
    const handle = handles.get(topic);
    if (kind === MAP_REMOVE) {
      if (handle !== undefined) table.remove(handle);
      handles.delete(topic);
    } else if (handle !== undefined) {
      if (kind === MAP_COMPUTE) table.computeIfAbsentHit();
    } else {
      const inserted = kind === MAP_PUT ? table.insert(hashOf(topic)) : table.computeIfAbsentInsert(hashOf(topic));
      handles.set(topic, inserted);
      topicOf[inserted] = topic;
    }
  }
  return table.order().map((handle) => topicOf[handle]);
}

/**
 * Partitions of a `HashSet<Integer>` made with `initialCapacity` (-1: `new HashSet<>()`), through the
 * events `order[from, to)` (an add where `adds[event]` is 1, else a remove), in Java's order.
 */
export function replayPartitionSet(
  initialCapacity: number,
  order: Int32Array,
  from: number,
  to: number,
  adds: Uint8Array,
  partitions: Int32Array,
): number[] {
  const table = new JavaHashTable(initialCapacity < 0 ? undefined : initialCapacity);
  const handles = new Map<number, number>();
  const valueOf: number[] = [];
  for (let k = from; k < to; k++) {
    const event = order[k];
    const partition = partitions[event];
    if (adds[event] === 1) {
      const handle = table.insert(partition);
      handles.set(partition, handle);
      valueOf[handle] = partition;
    } else table.remove(handles.get(partition) as number);
  }
  return table.order().map((handle) => valueOf[handle]);
}
