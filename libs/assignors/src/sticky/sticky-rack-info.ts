/**
 * Rack information for the sticky assignors (AbstractStickyAssignor.RackInfo, KIP-881): consumer
 * racks and replica racks per partition, used only when rack-aware assignment is switched on for the
 * whole group. Replica rack sets are interned: partitions laid out alike share one set.
 */
import { replicaRacks, type GroupInput } from '../common/group-input';
import { useRackAwareAssignment } from '../common/rack-awareness';

export class StickyRackInfo {
  /** Rack of each member when rack-aware, else null for all. */
  readonly consumerRack: (string | null)[];
  readonly enabled: boolean;
  private readonly partitionRacks: ReadonlySet<string>[] = [];
  private readonly consumersOnPartitionRacks: Int32Array | null = null;

  constructor(input: GroupInput, preferRackAwareLogic: boolean) {
    const consumersByRack = new Map<string, number>();
    const members = input.members;
    for (let m = 0; m < members.length; m++) {
      const rackId = members[m].rackId;
      if (rackId !== null) consumersByRack.set(rackId, (consumersByRack.get(rackId) ?? 0) + 1);
    }
    if (consumersByRack.size === 0) {
      this.enabled = false;
      // A loop rather than members.map(() => null), which calls a function per member on a
      // process's first call, and not new Array(n).fill(null), which leaves a list with holes,
      // slower to read in the balancing loops.
      const noRacks: null[] = [];
      for (let m = 0; m < members.length; m++) noRacks.push(null);
      this.consumerRack = noRacks;
      return;
    }
    const interned = new Map<string, ReadonlySet<string>>();
    const allRacks = new Set<string>();
    const { names, counts } = input.topics;
    for (let t = 0; t < names.length; t++) {
      for (let p = 0; p < counts[t]; p++) {
        const racks = replicaRacks(input.cluster, names[t], p).sort();
        const key = racks.join('\u0000');
        let set = interned.get(key);
        if (!set) {
          set = new Set(racks);
          interned.set(key, set);
          for (const rack of racks) allRacks.add(rack);
        }
        this.partitionRacks.push(set);
      }
    }
    this.enabled = useRackAwareAssignment(
      new Set(consumersByRack.keys()),
      allRacks,
      interned.values(),
      preferRackAwareLogic,
    );
    this.consumerRack = input.members.map((member) => (this.enabled ? member.rackId : null));
    if (this.enabled) {
      this.consumersOnPartitionRacks = Int32Array.from(this.partitionRacks, (racks) => {
        let sum = 0;
        for (const rack of racks) sum += consumersByRack.get(rack) ?? 0;
        return sum;
      });
    }
  }

  racksOf(partition: number): ReadonlySet<string> {
    return this.partitionRacks[partition];
  }

  /** The member has a rack and no replica of the partition is on it. */
  racksMismatch(member: number, partition: number): boolean {
    const rack = this.consumerRack[member];
    return rack !== null && !this.partitionRacks[partition].has(rack);
  }

  /** Stable sort by the number of consumers on racks holding a replica (fewest choices first). */
  sortByRackConsumers(partitions: number[]): number[] {
    const counts = this.consumersOnPartitionRacks;
    if (counts === null) return partitions;
    return partitions
      .map((p, i) => [p, i] as const)
      .sort((a, b) => counts[a[0]] - counts[b[0]] || a[1] - b[1])
      .map(([p]) => p);
  }

  /** Index in `consumers`, starting at `firstIndex` and wrapping, of the first one on a replica's rack; -1 if none. */
  nextRackConsumer(partition: number, consumers: readonly number[], firstIndex: number): number {
    const racks = this.partitionRacks[partition];
    if (!racks || racks.size === 0) return -1;
    for (let i = 0; i < consumers.length; i++) {
      const index = (firstIndex + i) % consumers.length;
      const rack = this.consumerRack[consumers[index]];
      if (rack !== null && racks.has(rack)) return index;
    }
    return -1;
  }
}
