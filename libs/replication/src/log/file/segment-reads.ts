import { KafkaError } from '@cohort/protocol';
import type { InPlaceVisitor, ReadOptions, StoredBatch } from '../partition-log';
import { forEachBatchRange } from './batch-ranges';
import type { Segment } from './segment';

/**
 * A FileLog's reads of its segment files. A read that fails (a batch failing its CRC, an I/O error) is
 * remembered (`failed`): the log's close then writes no clean-close index, so the next open reads the
 * whole log and cuts it at the damage, as after a crash, instead of trusting it again.
 */
export class SegmentReads {
  failed = false;

  constructor(
    private readonly dir: string,
    private readonly segments: () => Segment[],
    private readonly closed: () => boolean,
  ) {}

  read(fromOffset: number, upToOffset: number, maxRecords: number, options?: ReadOptions): StoredBatch[] {
    this.checkOpen();
    const out: StoredBatch[] = [];
    this.reading(() =>
      forEachBatchRange(this.segments(), fromOffset, upToOffset, maxRecords, (segment, from, to) => {
        for (const batch of segment.readBatches(from, to, options?.shareBuffers)) out.push(batch);
      }),
    );
    return out;
  }

  /** The records of the batches `read` would return, visited in place: no record object, no copy. */
  scan(fromOffset: number, upToOffset: number, maxRecords: number, visit: InPlaceVisitor): void {
    this.checkOpen();
    this.reading(() =>
      forEachBatchRange(this.segments(), fromOffset, upToOffset, maxRecords, (segment, from, to) =>
        segment.scanBatches(from, to, visit),
      ),
    );
  }

  private checkOpen(): void {
    if (this.closed()) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`);
  }

  private reading(read: () => void): void {
    try {
      read();
    } catch (error) {
      this.failed = true;
      throw error;
    }
  }
}
