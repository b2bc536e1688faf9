import { addToWindow, type LagWindow, type LagWindowEntry, windowEntries } from './lag-window';

/** The lag windows of one group's partitions, created on the first commit this coordinator sees. */
export class GroupLagWindows {
  /** Made on the first commit: a loaded group has no window until it commits again. */
  private byTopic: Map<string, Map<number, LagWindow>> | undefined;

  constructor(
    private readonly capacity: number,
    private readonly minDistanceMs: number,
  ) {}

  record(topic: string, partition: number, timestamp: number, offset: number, logEndOffset: number | null): void {
    let byPartition = (this.byTopic ??= new Map()).get(topic);
    if (!byPartition) this.byTopic.set(topic, (byPartition = new Map()));
    const window = byPartition.get(partition);
    const next = addToWindow(window, this.capacity, this.minDistanceMs, timestamp, offset, logEndOffset);
    if (next !== window) byPartition.set(partition, next);
  }

  /** The partition's window, oldest first; empty when this coordinator has seen no commit of it. */
  entries(topic: string, partition: number): LagWindowEntry[] {
    const window = this.byTopic?.get(topic)?.get(partition);
    return window === undefined ? [] : windowEntries(window);
  }
}
