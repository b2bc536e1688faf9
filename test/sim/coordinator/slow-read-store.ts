import type {
  AppendResult,
  Clock,
  LeadershipListener,
  LogRecord,
  PartitionOffsets,
  PartitionStore,
  ReadResult,
} from '@cohort/replication';

/**
 * A node's PartitionStore whose reads take simulated disk time, so that a coordinator's replay spans
 * several simulation steps and requests arriving meanwhile meet COORDINATOR_LOAD_IN_PROGRESS.
 */
export class SlowReadStore implements PartitionStore {
  constructor(
    private readonly inner: PartitionStore,
    private readonly clock: Clock,
    private readonly readLatencyMs: number,
  ) {}

  append(partition: number, leaderEpoch: number, records: LogRecord[]): AppendResult {
    return this.inner.append(partition, leaderEpoch, records);
  }

  awaitCommit(partition: number, leaderEpoch: number, lastOffset: number, timeoutMs: number): Promise<void> {
    return this.inner.awaitCommit(partition, leaderEpoch, lastOffset, timeoutMs);
  }

  async read(partition: number, fromOffset: number, upToOffset: number, maxRecords: number): Promise<ReadResult> {
    await new Promise<void>((resolve) => this.clock.schedule(this.readLatencyMs, resolve));
    return this.inner.read(partition, fromOffset, upToOffset, maxRecords);
  }

  offsets(partition: number): PartitionOffsets {
    return this.inner.offsets(partition);
  }

  subscribe(listener: LeadershipListener): () => void {
    return this.inner.subscribe(listener);
  }
}
