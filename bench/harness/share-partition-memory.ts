import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { SharePartition } from '@cohort/coordinator/share/share-partition';

/** A full collection before each memory reading, without asking for `node --expose-gc`. */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/**
 * Heap per offset in flight of share partitions holding `count × perWorker` offsets each in leases of
 * `perWorker` (one per worker), over enough partitions that the heap's noise is small.
 */
export function sharePartitionBytesPerOffset(count: number, perWorker: number): number {
  const limits = { deliveryCountLimit: 5, maxRecordLocks: 2000, lockDurationMs: 30_000 };
  const partitions: SharePartition[] = [];
  collectGarbage();
  const before = process.memoryUsage().heapUsed;
  for (let p = 0; p < 200; p++) {
    const partition = new SharePartition(0, 0);
    partition.reportEnd(1_000_000);
    for (let w = 0; w < count; w++) {
      const { change } = partition.acquire(`member-${w}`, perWorker, perWorker, 0, limits);
      if (change) partition.complete(change, true, 0, limits);
    }
    partitions.push(partition);
  }
  collectGarbage();
  const bytes = process.memoryUsage().heapUsed - before;
  return bytes / (partitions.length * count * perWorker);
}
