/**
 * One topic's share-out in the range assignor (Kafka's RangeAssignor.TopicAssignmentState): its
 * consumers in member order, per-consumer quota (q, plus one for the first r consumers to reach it),
 * the partitions still unassigned in partition order, and the replica racks used for rack matching.
 */
import { replicaRacks, type GroupInput } from '../common/group-input';
import { useRackAwareAssignment } from '../common/rack-awareness';

export class RangeTopicState {
  /** Member indices subscribing to the topic, in Kafka's member order. */
  readonly consumers: number[];
  readonly partitionCount: number;
  readonly needsRackAwareAssignment: boolean;
  /** Replica racks per partition; only filled when some consumer of the topic has a rack. */
  readonly partitionRacks: ReadonlySet<string>[] | null;
  private readonly unassigned: Uint8Array;
  private unassignedCount: number;
  private firstUnassigned = 0;
  private readonly numAssigned = new Map<number, number>();
  private readonly perConsumer: number;
  private remainingWithExtra: number;

  constructor(
    readonly topic: number,
    input: GroupInput,
    consumersInOrder: number[],
    private readonly rackOf: (member: number) => string | null,
    preferRackAwareLogic: boolean,
  ) {
    const name = input.topics.names[topic];
    this.partitionCount = input.topics.counts[topic];
    this.consumers = consumersInOrder;
    this.unassigned = new Uint8Array(this.partitionCount).fill(1);
    this.unassignedCount = this.partitionCount;
    this.perConsumer = this.consumers.length === 0 ? 0 : Math.floor(this.partitionCount / this.consumers.length);
    this.remainingWithExtra = this.consumers.length === 0 ? 0 : this.partitionCount % this.consumers.length;
    const consumerRacks = new Set<string>();
    for (const c of this.consumers) {
      const rack = rackOf(c);
      if (rack !== null) consumerRacks.add(rack);
    }
    if (consumerRacks.size === 0) {
      this.partitionRacks = null;
      this.needsRackAwareAssignment = false;
      return;
    }
    const allRacks = new Set<string>();
    this.partitionRacks = [];
    for (let p = 0; p < this.partitionCount; p++) {
      const racks = new Set(replicaRacks(input.cluster, name, p));
      for (const rack of racks) allRacks.add(rack);
      this.partitionRacks.push(racks);
    }
    this.needsRackAwareAssignment = useRackAwareAssignment(
      consumerRacks,
      allRacks,
      this.partitionRacks,
      preferRackAwareLogic,
    );
  }

  /** Key that groups co-partitioned topics: Kafka groups by partitionRacks.size(), 0 without consumer racks. */
  get rackGroupSize(): number {
    return this.partitionRacks === null ? 0 : this.partitionCount;
  }

  get hasUnassigned(): boolean {
    return this.unassignedCount > 0;
  }

  isUnassigned(partition: number): boolean {
    return this.unassigned[partition] === 1;
  }

  racksMatch(consumer: number, partition: number): boolean {
    const rack = this.rackOf(consumer);
    if (rack === null) return true;
    return this.partitionRacks !== null && this.partitionRacks[partition].has(rack);
  }

  maxAssignable(consumer: number): number {
    const max = this.perConsumer + (this.remainingWithExtra > 0 ? 1 : 0) - (this.numAssigned.get(consumer) ?? 0);
    return Math.max(0, max);
  }

  /** Up to `limit` unassigned partitions, in partition order, that pass `accept`. */
  takeable(limit: number, accept?: (partition: number) => boolean): number[] {
    const taken: number[] = [];
    for (let p = this.firstUnassigned; p < this.partitionCount && taken.length < limit; p++) {
      if (this.unassigned[p] === 1 && (!accept || accept(p))) taken.push(p);
    }
    return taken;
  }

  onAssigned(consumer: number, partitions: number[]): void {
    const total = (this.numAssigned.get(consumer) ?? 0) + partitions.length;
    this.numAssigned.set(consumer, total);
    if (total > this.perConsumer) this.remainingWithExtra--;
    for (const p of partitions) {
      if (this.unassigned[p] === 1) {
        this.unassigned[p] = 0;
        this.unassignedCount--;
      }
    }
    while (this.firstUnassigned < this.partitionCount && this.unassigned[this.firstUnassigned] === 0)
      this.firstUnassigned++;
  }
}
