import type { Partition } from '../partition/partition';
import type { PartitionEvents } from '../partition/partition-context';
import type { AlterPartitionSender } from './alter-partition-sender';
import type { FetchPurgatory } from './fetch-purgatory';
import type { LeadershipNotifier } from './leadership-notifier';

/** What the node gives its partitions' events to. */
export interface PartitionEventTargets {
  partition(id: number): Partition | undefined;
  /** LOG_FLUSH_POLICY=always: a leader append is flushed at once, and only then counts for the HW. */
  flushOnAppend: boolean;
  purgatory: FetchPurgatory;
  notifier: LeadershipNotifier;
  sender: AlterPartitionSender;
  afterChange(p: Partition): void;
  onTruncate(partition: number, toOffset: number, hw: number, reason: string): void;
  reportError(error: unknown, context: string): void;
}

/**
 * Turns a partition's events into the node's work: an append wakes the parked follower fetches (and
 * flushes under LOG_FLUSH_POLICY=always, then recomputes the HW); a HW rise may announce a loaded
 * leadership; an ISR proposal goes to the controller; a truncation is reported.
 */
export function partitionEvents(t: PartitionEventTargets): PartitionEvents {
  return {
    onLeaderAppend: (partition) => {
      t.purgatory.wake(partition);
      const p = t.partition(partition);
      if (p && t.flushOnAppend) {
        p.log.flush().then(
          () => p.maybeIncrementHighWatermark() && t.afterChange(p),
          (e) => t.reportError(e, `flushing partition ${partition}`),
        );
      }
    },
    onHighWatermark: (partition) => {
      const p = t.partition(partition);
      if (p) t.notifier.check(p);
    },
    onIsrProposal: (partition) => {
      const p = t.partition(partition);
      if (p) t.sender.send(p);
    },
    onTruncate: (partition, toOffset, hw, reason) => t.onTruncate(partition, toOffset, hw, reason),
  };
}
