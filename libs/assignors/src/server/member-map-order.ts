/**
 * The order in which Kafka's assignors meet a group's members: Java's `HashMap<String, _>` iteration
 * order of the member ids (or, for callers that ask, the spec's own order), refusing an id given twice.
 */
import { javaStringHashCode, KafkaError } from '@cohort/protocol';
import { javaTableCapacity, spreadHash as importedSpreadHash } from '../common/java-order';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, which stays a call in the per-member loops below.
const spreadHash = importedSpreadHash;
const stringHashCode = javaStringHashCode;

/** Each id's Java `String.hashCode`. */
export function memberIdHashes(ids: readonly string[]): Int32Array {
  const hashes = new Int32Array(ids.length);
  for (let i = 0; i < ids.length; i++) hashes[i] = stringHashCode(ids[i]);
  return hashes;
}

/**
 * Java's HashMap<String, _> order of the member ids filled in the spec's order (as javaHashMapOrder),
 * throwing on an id given twice: equal ids share a bucket, and a bucket's ids are contiguous in that
 * order, so only ids of one bucket are compared (no set of every id). `hashes`: memberIdHashes(ids),
 * which a kept group already knows for most of its members. A typed array: its numbers live off the
 * heap a scavenge copies (a kept group holds its order until the next call).
 */
export function memberMapOrder(ids: readonly string[], hashes: Int32Array = memberIdHashes(ids)): Int32Array {
  const n = ids.length;
  const capacity = javaTableCapacity(n);
  const buckets = new Int32Array(n);
  const starts = new Int32Array(capacity + 1);
  for (let i = 0; i < n; i++) {
    const bucket = spreadHash(hashes[i]) & (capacity - 1);
    buckets[i] = bucket;
    starts[bucket + 1]++;
  }
  for (let b = 0; b < capacity; b++) starts[b + 1] += starts[b];
  const order = new Int32Array(n);
  for (let i = 0; i < n; i++) order[starts[buckets[i]]++] = i;
  for (let start = 0; start < n;) {
    let end = start + 1;
    while (end < n && buckets[order[end]] === buckets[order[start]]) end++;
    for (let a = start; a < end; a++)
      for (let b = a + 1; b < end; b++)
        if (hashes[order[a]] === hashes[order[b]] && ids[order[a]] === ids[order[b]]) duplicateMember(ids[order[a]]);
    start = end;
  }
  return order;
}

function duplicateMember(id: string): never {
  throw KafkaError.of('INVALID_REQUEST', `duplicate member id '${id}'`);
}

/** The spec's own order, throwing on an id given twice. */
export function givenOrder(ids: readonly string[]): Int32Array {
  const seen = new Set<string>();
  for (const id of ids) {
    if (seen.has(id)) duplicateMember(id);
    seen.add(id);
  }
  const order = new Int32Array(ids.length);
  for (let i = 0; i < order.length; i++) order[i] = i;
  return order;
}
