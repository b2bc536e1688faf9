/**
 * The common target of a member that held nothing: partitions of one topic added in ascending order
 * (the homogeneous builder deals the unassigned list in runs). Its map holds one topic, its set grew
 * by inserts alone, so Java's order is the partitions sorted by bucket of the final table, stably;
 * worked out here without target-replay.ts's bookkeeping. Undefined for any other log, or when a chain
 * of nine could have formed in a small first table (treeifyBin would have grown it).
 */
import type { TopicPartitions } from '@cohort/protocol';
import { spreadHash as importedSpreadHash } from '../common/java-order';
import type { ModelTopic } from './group-model';
import { tableSizeFor as importedTableSizeFor } from './java-hash-table';
import type { TargetLog } from './member-target-log';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, which stays a call in the per-partition loops below.
const spreadHash = importedSpreadHash;
const tableSizeFor = importedTableSizeFor;

const MAX_SORTED_BY_INSERTION = 32;

export function freshOneTopicTarget(
  log: TargetLog,
  member: number,
  topics: readonly ModelTopic[],
): TopicPartitions[] | undefined {
  let op = log.head[member];
  if (op === -1) return [];
  // An op's word, partition and next, side by side (member-target-log.ts).
  const ops = log.ops;
  const word = ops[op];
  // ADD is kind 0: the word is topic * 4.
  if ((word & 3) !== 0) return undefined;
  // Checked before anything is allocated: most logs of a heterogeneous group span several topics.
  let n = 0;
  let previous = -1;
  for (let at = op; at !== -1; at = ops[at + 2]) {
    const partition = ops[at + 1];
    if (ops[at] !== word || partition <= previous) return undefined;
    previous = partition;
    n++;
  }
  const partitions = new Array<number>(n);
  for (let k = 0; op !== -1; op = ops[op + 2]) partitions[k++] = ops[op + 1];
  const initial = log.newSetCapacity[word >>> 2];
  const first = initial < 0 ? 16 : tableSizeFor(initial) || 16;
  if (n >= 9 && first < 64 && nineInABucket(partitions, first)) return undefined;
  // The table after n inserts (HashMap.resize from the first table).
  let capacity = first;
  let threshold = Math.floor(first * 0.75);
  while (n > threshold) {
    threshold = capacity >= 16 ? threshold * 2 : Math.floor(capacity * 2 * 0.75);
    capacity *= 2;
  }
  const mask = capacity - 1;
  let sorted = true;
  for (let k = 1; k < n && sorted; k++)
    sorted = (spreadHash(partitions[k]) & mask) >= (spreadHash(partitions[k - 1]) & mask);
  if (!sorted) {
    if (n > MAX_SORTED_BY_INSERTION) return undefined;
    for (let i = 1; i < n; i++) {
      const partition = partitions[i];
      const bucket = spreadHash(partition) & mask;
      let j = i - 1;
      for (; j >= 0 && (spreadHash(partitions[j]) & mask) > bucket; j--) partitions[j + 1] = partitions[j];
      partitions[j + 1] = partition;
    }
  }
  return [{ topic: topics[word >>> 2].name, partitions }];
}

/** nineInABucket's counts, zeroed for each call (a call per member: no array of its own each time). */
const firstTableCounts = new Int32Array(64);

function nineInABucket(partitions: readonly number[], first: number): boolean {
  const counts = firstTableCounts;
  counts.fill(0, 0, first);
  for (const partition of partitions) if (++counts[spreadHash(partition) & (first - 1)] >= 9) return true;
  return false;
}
