import {
  decodeSharePartitionSnapshot,
  mergeSnapshots,
  type SharePartitionSnapshot,
  type SharePartitionStateKey,
} from './share-state-records';

/** A share partition's state as the log leaves it. */
export interface LoadedSharePartition extends SharePartitionStateKey {
  snapshot: SharePartitionSnapshot;
}

/**
 * Replays share partition state records in log order: each record is merged into what the key held
 * (`mergeSnapshots`: a higher state epoch replaces, the same epoch merges by count then state), a
 * tombstone deletes. Any suffix of the records after compaction converges to the same state, since
 * each record is a whole snapshot and the merge is idempotent.
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
    const snapshot = decodeSharePartitionSnapshot(value);
    const known = this.states.get(id);
    this.states.set(id, { ...key, snapshot: known ? mergeSnapshots(known.snapshot, snapshot) : snapshot });
  }

  list(): LoadedSharePartition[] {
    return [...this.states.values()];
  }

  get size(): number {
    return this.states.size;
  }
}
