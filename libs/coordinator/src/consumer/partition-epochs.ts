import type { TopicPartitions } from './topic-partitions';

/** Partitions a member holds (assigned, or pending revocation) at its member epoch. */
export interface HeldPartitions {
  partitions: TopicPartitions;
  epoch: number;
}

/**
 * The epoch at which each partition of a consumer group is owned now (Kafka's `currentPartitionEpoch`):
 * a partition is owned by one member at a time, and finding the index disagree with a member means the
 * records broke that rule, which Kafka treats as an illegal state. A member's change is one `swap`,
 * checked in full before anything moves: a refused change leaves the index as it was, so the group is
 * never left with a member whose partitions the index does not know (a later fencing of that member,
 * from a timer, would then fail on its own tombstone).
 */
export class PartitionEpochs {
  private readonly byTopic = new Map<string, Map<number, number>>();

  /** The owner's epoch, or -1. */
  get(topic: string, partition: number): number {
    return this.byTopic.get(topic)?.get(partition) ?? -1;
  }

  /** `before`'s partitions are released and `after`'s taken, all or nothing. */
  swap(before: readonly HeldPartitions[], after: readonly HeldPartitions[]): void {
    // A member changed in nothing it holds (its subscription, or a record of the same assignment):
    // every change was checked, so the index already holds exactly this.
    if (sameHeld(before, after)) return;
    // A member that moved to another epoch holding the very same partitions (most reconciliations of a
    // group forming, and every member once one joins a stable group): its partitions change epoch in
    // place, checked first, without the sets of what is released and taken.
    if (reEpochs(before, after)) {
      // Topics by key, then their sets: iterating a map's entries makes a [key, value] pair per topic,
      // and every member of a group moving epoch comes here.
      for (let i = 0; i < before.length; i++) {
        const { partitions, epoch } = before[i];
        for (const topic of partitions.keys()) {
          const byPartition = this.byTopic.get(topic);
          if (!byPartition)
            throw new Error(`Cannot remove the epoch ${epoch} from ${topic} because it does not have any epoch`);
          for (const p of partitions.get(topic)!) {
            const previous = byPartition.get(p);
            if (previous !== epoch)
              throw new Error(
                `Cannot remove the epoch ${epoch} from ${topic}-${p} because the partition is still owned at a different epoch ${previous}`,
              );
          }
        }
      }
      for (let i = 0; i < after.length; i++) {
        const { partitions, epoch } = after[i];
        for (const topic of partitions.keys()) {
          const byPartition = this.byTopic.get(topic)!;
          for (const p of partitions.get(topic)!) byPartition.set(p, epoch);
        }
      }
      return;
    }
    // A member that held nothing takes partitions (every member's first assignment while a group forms):
    // each must be unowned, checked first, and with at most one map holding any none can be taken twice;
    // no sets of what is released and taken are built.
    if (takesOnly(before, after)) {
      for (let i = 0; i < after.length; i++) {
        const { partitions, epoch } = after[i];
        for (const topic of partitions.keys()) {
          const byPartition = this.byTopic.get(topic);
          if (!byPartition) continue;
          for (const p of partitions.get(topic)!) {
            const previous = byPartition.get(p);
            if (previous !== undefined)
              throw new Error(
                `Cannot set the epoch of ${topic}-${p} to ${epoch} because the partition is still owned at epoch ${previous}`,
              );
          }
        }
      }
      for (let i = 0; i < after.length; i++) {
        const { partitions, epoch } = after[i];
        for (const topic of partitions.keys()) {
          let byPartition = this.byTopic.get(topic);
          if (!byPartition) this.byTopic.set(topic, (byPartition = new Map()));
          for (const p of partitions.get(topic)!) byPartition.set(p, epoch);
        }
      }
      return;
    }
    // Topic → partitions, not one joined key string per partition: a member's every change comes here.
    const released = new Map<string, Set<number>>();
    for (const { partitions, epoch } of before)
      for (const [topic, set] of partitions) {
        const byPartition = this.byTopic.get(topic);
        if (!byPartition)
          throw new Error(`Cannot remove the epoch ${epoch} from ${topic} because it does not have any epoch`);
        const releasedOfTopic = setOf(released, topic);
        for (const p of set) {
          const previous = byPartition.get(p);
          if (previous !== epoch || releasedOfTopic.has(p))
            throw new Error(
              `Cannot remove the epoch ${epoch} from ${topic}-${p} because the partition is still owned at a different epoch ${previous}`,
            );
          releasedOfTopic.add(p);
        }
      }
    const taken = new Map<string, Set<number>>();
    for (const { partitions, epoch } of after)
      for (const [topic, set] of partitions) {
        const releasedOfTopic = released.get(topic);
        const byPartition = this.byTopic.get(topic);
        const takenOfTopic = setOf(taken, topic);
        for (const p of set) {
          const previous = releasedOfTopic?.has(p) ? undefined : byPartition?.get(p);
          if (previous !== undefined || takenOfTopic.has(p))
            throw new Error(
              `Cannot set the epoch of ${topic}-${p} to ${epoch} because the partition is still owned at epoch ${previous ?? epoch}`,
            );
          takenOfTopic.add(p);
        }
      }
    for (const { partitions } of before)
      for (const [topic, set] of partitions) {
        const byPartition = this.byTopic.get(topic)!;
        for (const p of set) byPartition.delete(p);
        if (byPartition.size === 0) this.byTopic.delete(topic);
      }
    for (const { partitions, epoch } of after)
      for (const [topic, set] of partitions) {
        let byPartition = this.byTopic.get(topic);
        if (!byPartition) this.byTopic.set(topic, (byPartition = new Map()));
        for (const p of set) byPartition.set(p, epoch);
      }
  }
}

function setOf(map: Map<string, Set<number>>, topic: string): Set<number> {
  let set = map.get(topic);
  if (!set) map.set(topic, (set = new Set()));
  return set;
}

/** The same partitions (the same maps) at the same epochs. */
function sameHeld(before: readonly HeldPartitions[], after: readonly HeldPartitions[]): boolean {
  return (
    before.length === after.length &&
    before.every((held, i) => held.partitions === after[i].partitions && held.epoch === after[i].epoch)
  );
}

/** `before` holds no partition and at most one map of `after` holds any (so no partition is in two of them). */
function takesOnly(before: readonly HeldPartitions[], after: readonly HeldPartitions[]): boolean {
  for (let i = 0; i < before.length; i++) if (before[i].partitions.size > 0) return false;
  let held = 0;
  for (let i = 0; i < after.length; i++) if (after[i].partitions.size > 0) held++;
  return held <= 1;
}

/**
 * The same partitions (the same maps), of which at most one holds any: released and taken again, only
 * their epochs change, and no partition can be released twice (two non-empty maps could share one,
 * which the full check refuses).
 */
function reEpochs(before: readonly HeldPartitions[], after: readonly HeldPartitions[]): boolean {
  if (before.length !== after.length) return false;
  let held = 0;
  for (let i = 0; i < before.length; i++) {
    if (before[i].partitions !== after[i].partitions) return false;
    if (before[i].partitions.size > 0) held++;
  }
  return held <= 1;
}
