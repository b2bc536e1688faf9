/**
 * Small durable files of one node: the leader-epoch checkpoint of each partition, the HW checkpoint,
 * the clean-shutdown marker. Production writes real files under DATA_DIR; the simulator keeps them on
 * its simulated disk.
 *
 * `write` is atomic and durable when it returns (Kafka's CheckpointFile: write `<name>.tmp`, fsync,
 * rename): after a crash a reader sees either the old or the new content, never a mix. Synchronous on
 * purpose: checkpoints are tiny and rare, and the epoch cache must be on disk before the leader appends
 * in a new epoch.
 */
export interface CheckpointStorage {
  /** The content last written under `name`, or null if none. */
  read(name: string): string | null;
  write(name: string, content: string): void;
  remove(name: string): void;
}
