import {
  decodeSharePartitionSnapshot,
  type SharePartitionSnapshot,
  type SharePartitionStateKey,
} from './share-state-records';

/** A share partition's state as the log leaves it. */
export interface LoadedSharePartition extends SharePartitionStateKey {
  snapshot: SharePartitionSnapshot;
}

/**
 * Replays share partition state records in log order: each record is the whole state of its key and
 * replaces what the key held (Kafka's ShareSnapshot replay), a tombstone deletes. The last record of a
 * key is the one compaction keeps, so a log whose older records of a key survive beside a compacted
 * tail (a follower's own old records, then the leader's cleaned log) loads that key's latest state. A
 * merge of the records (by state epoch, then delivery count) would not: a group deleted and created
 * again starts over at state epoch 0 with low counts, and once the cleaner dropped the tombstone
 * between its two lives, the first life's records would win over the second's acknowledgements.
 */
export class ShareStateReplay {
  private readonly states = new Map<string, LoadedSharePartition>();

  /** Decodes the value before anything changes, so an unreadable record leaves the state as it was. */
  apply(key: SharePartitionStateKey, value: Buffer | null): void {
    const id = `${key.groupId}\u0000${key.topic}\u0000${key.partition}`;
    if (value === null) {
      this.states.delete(id);
      return;
    }
    this.states.set(id, { ...key, snapshot: decodeSharePartitionSnapshot(value) });
  }

  list(): LoadedSharePartition[] {
    return [...this.states.values()];
  }

  get size(): number {
    return this.states.size;
  }
}
