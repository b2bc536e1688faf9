import type { LeadershipListener } from '../api/partition-store.port';
import type { Partition } from '../partition/partition';

/**
 * Tells the coordinator when it may serve a partition and when it must stop (PartitionStore.subscribe).
 * `onBecomeLeader` is sent only once this node leads the partition in the metadata *and* its HW has
 * reached the epoch start — so everything the log holds from earlier epochs is committed and a replay
 * up to the HW sees all of it. `onResign` is sent as soon as that leadership ends (after the pending
 * commits of the epoch have been failed).
 */
export class LeadershipNotifier {
  private readonly listeners = new Set<LeadershipListener>();
  private readonly announced = new Map<number, number>();

  constructor(private readonly onListenerError?: (error: unknown) => void) {}

  subscribe(listener: LeadershipListener): () => void {
    this.listeners.add(listener);
    for (const [partition, epoch] of [...this.announced]) listener.onBecomeLeader(partition, epoch);
    return () => void this.listeners.delete(listener);
  }

  /** Announces the leadership epoch `p` may be served in, if any. */
  announcedEpoch(partition: number): number | undefined {
    return this.announced.get(partition);
  }

  /** Re-evaluates `p` after any change of its role, epoch or HW. */
  check(p: Partition): void {
    const current = this.announced.get(p.partition);
    if (current !== undefined && (p.role !== 'leader' || p.leaderEpoch !== current)) {
      this.announced.delete(p.partition);
      this.each((l) => l.onResign(p.partition, current));
    }
    if (!this.announced.has(p.partition) && p.isLoadable()) {
      this.announced.set(p.partition, p.leaderEpoch);
      this.each((l) => l.onBecomeLeader(p.partition, p.leaderEpoch));
    }
  }

  /** Every announced leadership ends (node stopping or fenced). */
  resignAll(partitions: Iterable<Partition>): void {
    for (const p of partitions) {
      const current = this.announced.get(p.partition);
      if (current === undefined) continue;
      this.announced.delete(p.partition);
      this.each((l) => l.onResign(p.partition, current));
    }
  }

  /** A listener that throws must not keep the others (or replication) from hearing about leadership. */
  private each(call: (l: LeadershipListener) => void): void {
    for (const l of [...this.listeners]) {
      try {
        call(l);
      } catch (error) {
        this.onListenerError?.(error);
      }
    }
  }
}
