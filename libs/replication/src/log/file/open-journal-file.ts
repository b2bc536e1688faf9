import { fdatasync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';

/**
 * One open journal file. Its fdatasyncs go through the callback API on the descriptor rather than
 * `FileHandle.datasync()`, whose promise request, extra promises and reference counting cost the event
 * loop's thread more per call, and a busy node under LOG_FLUSH_POLICY=always fdatasyncs thousands of
 * times a second. What the handle's reference counting gave, closing only once no sync runs on the
 * descriptor (so a sync never lands on a closed or reused one), `close` keeps by counting the syncs.
 */
export class OpenJournalFile {
  private syncing = 0;
  private idle: (() => void) | undefined;
  private abandoned = false;

  private constructor(private readonly handle: FileHandle) {}

  /** Creates (or empties) the file at `path`. */
  static async create(path: string): Promise<OpenJournalFile> {
    return new OpenJournalFile(await open(path, 'w'));
  }

  /** A synchronous positioned write of all of `bytes` (to the page cache, as the logs' own writes are). */
  writeAt(bytes: Buffer, position: number): void {
    let done = 0;
    while (done < bytes.length) done += writeSync(this.handle.fd, bytes, done, bytes.length - done, position + done);
  }

  /** fdatasync: resolves once everything written to the file before the call is on stable storage. */
  datasync(): Promise<void> {
    this.syncing++;
    return new Promise<void>((resolve, reject) => {
      fdatasync(this.handle.fd, (error) => {
        if (--this.syncing === 0) this.idle?.();
        if (error) reject(error);
        // Abandoned meanwhile: the descriptor may have been closed before the sync ran, or reused.
        else if (this.abandoned) reject(new Error('EBADF: the journal file was closed during its fdatasync'));
        else resolve();
      });
    });
  }

  /** Closes the file once every fdatasync issued on it has ended. */
  async close(): Promise<void> {
    if (this.syncing > 0) await new Promise<void>((resolve) => (this.idle = resolve));
    this.idle = undefined;
    await this.handle.close();
  }

  /** Closes the file at once, as a dying process would: an fdatasync still running on it fails. */
  async abandon(): Promise<void> {
    this.abandoned = true;
    await this.handle.close();
  }
}
