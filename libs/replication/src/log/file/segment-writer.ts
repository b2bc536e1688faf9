import { open, unlink } from 'node:fs/promises';
import type { IoQueue } from './io-queue';
import type { Segment } from './segment';
import { fsyncDirectory, ignoreMissing } from './segment-files';

/**
 * How a FileLog's bytes reach its segment files, in order, through its I/O queue: the one queued write
 * that later appends join, files created, truncated and unlinked in the order the log asked, and the
 * fsync of every file touched (and of the directory when files came or went). Truncations are counted:
 * a write only writes bytes appended before the truncations queued after it.
 */
export class SegmentWriter {
  /** The write operation queued and not yet started, which later appends join. */
  private queuedWrite: Promise<void> | undefined;
  /** Truncations so far; a write operation only writes bytes appended before the truncations queued after it. */
  private truncationCount = 0;
  private readonly dirtySegments = new Set<Segment>();
  private dirChanged = false;

  constructor(
    private readonly dir: string,
    private readonly io: IoQueue,
    private readonly segments: () => Segment[],
  ) {}

  /** The barrier appends are made under now (the number of truncations so far). */
  get truncations(): number {
    return this.truncationCount;
  }

  /** The write every append so far joins: it hands their bytes to the OS (written, not fsynced). */
  scheduleWrite(): Promise<void> {
    if (this.queuedWrite) return this.queuedWrite;
    const barrier = this.truncationCount;
    const write = this.io.run(() => {
      if (this.queuedWrite === write) this.queuedWrite = undefined;
      return this.writePending(barrier);
    });
    write.catch(noop);
    this.queuedWrite = write;
    return write;
  }

  /** A new segment: its file is created in order, and written to once it exists. */
  created(segment: Segment): void {
    void this.io
      .run(async () => {
        if (segment.deleted) return;
        segment.handle = await open(segment.path, 'w+');
        this.dirChanged = true;
        this.dirtySegments.add(segment);
        if (segment.pending.length > 0) void this.scheduleWrite();
      })
      .catch(noop);
  }

  /** The segment is gone from the log: its file is closed and unlinked in order. */
  deleted(segment: Segment): void {
    segment.deleted = true;
    this.dirtySegments.delete(segment);
    void this.io
      .run(async () => {
        await segment.handle?.close();
        segment.handle = undefined;
        await unlink(segment.path).catch(ignoreMissing);
        this.dirChanged = true;
      })
      .catch(noop);
  }

  /** Compaction swapped these segments out: their files are no longer the writer's to sync. */
  replaced(old: readonly Segment[]): void {
    for (const s of old) {
      s.deleted = true;
      this.dirtySegments.delete(s);
    }
  }

  /**
   * The log was cut inside `active`, now `size` bytes: its file is truncated in order, and appends from
   * now on are written by a write operation queued after this truncation.
   */
  truncated(active: Segment, size: number): void {
    void this.io
      .run(async () => {
        if (active.deleted) return;
        await active.handle!.truncate(size);
        this.dirtySegments.add(active);
      })
      .catch(noop);
    this.truncationCount++;
    this.queuedWrite = undefined;
  }

  /** Writes what was appended so far, then fsyncs every touched file and the directory (in the I/O queue). */
  sync(): Promise<void> {
    const barrier = this.truncationCount;
    return this.io.run(() => this.syncFiles(barrier));
  }

  /**
   * Writes the queued bytes appended before truncation number `barrier`, one positioned writev per
   * segment. Runs inside the I/O queue, so it is ordered with truncations.
   */
  private async writePending(barrier: number): Promise<void> {
    for (const segment of this.segments()) {
      if (!segment.handle || segment.pending.length === 0) continue;
      const chunks = segment.takeUnissued(barrier);
      if (chunks.length === 0) continue;
      segment.writeChunks(chunks);
      this.dirtySegments.add(segment);
      segment.written(chunks);
    }
  }

  /** Writes what was appended before truncation number `barrier`, then fsyncs every touched file and the directory. */
  private async syncFiles(barrier: number): Promise<void> {
    await this.writePending(barrier);
    const toSync = [...this.dirtySegments].filter((s) => !s.deleted && s.handle);
    const dirChanged = this.dirChanged;
    await Promise.all(toSync.map((s) => s.handle!.sync()));
    // Only once they are synced: a failed sync runs again on heal() and must find them still dirty.
    for (const s of toSync) this.dirtySegments.delete(s);
    if (dirChanged) {
      await fsyncDirectory(this.dir);
      this.dirChanged = false;
    }
  }
}

function noop(): void {}
