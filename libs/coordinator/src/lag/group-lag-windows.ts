import { LagWindow } from './lag-window';

/** The lag windows of one group's partitions, created on the first commit this coordinator sees. */
export class GroupLagWindows {
  private readonly byTopic = new Map<string, Map<number, LagWindow>>();

  constructor(
    private readonly capacity: number,
    private readonly minDistanceMs: number,
  ) {}

  record(topic: string, partition: number, timestamp: number, offset: number, logEndOffset: number | null): void {
    let byPartition = this.byTopic.get(topic);
    if (!byPartition) this.byTopic.set(topic, (byPartition = new Map()));
    let window = byPartition.get(partition);
    if (!window) byPartition.set(partition, (window = new LagWindow(this.capacity, this.minDistanceMs)));
    window.add(timestamp, offset, logEndOffset);
  }

  get(topic: string, partition: number): LagWindow | undefined {
    return this.byTopic.get(topic)?.get(partition);
  }
}
