import {
  type BigIntStats,
  fstatSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import * as path from 'node:path';

/**
 * What a power cut keeps: each file up to its size at its last fsync or fdatasync, nothing of a file
 * never synced. Every sync of a FileHandle (fs/promises) and every callback `fs.fdatasync` is recorded
 * while installed; synchronous fsyncs are not, so only use it for code that syncs one of those ways.
 *
 * A file truncated or rewritten below its durable size since its last sync keeps those changes by
 * default (the disk got them); `crash(..., undoRewrites)` can instead give it back its bytes as they
 * were synced, as a disk may when the truncation's metadata and the new bytes never reached it.
 */
export class PageCacheModel {
  /**
   * Durable size, and the bytes synced, by file identity: inode and birth time, since a deleted file's
   * inode is reused.
   */
  private readonly durable = new Map<string, { size: number; started: number; bytes: Buffer }>();
  private started = 0;
  /** Calls so far, by method. */
  readonly calls = { sync: 0, datasync: 0 };
  private spies: jest.SpyInstance[] = [];
  private frozen = false;
  private holding = false;
  /** Syncs issued while `hold()` was on, each waiting for its `release()` (oldest first). */
  readonly held: Array<{ release(): void }> = [];

  async install(dir: string): Promise<void> {
    this.durable.clear();
    this.frozen = false;
    this.holding = false;
    this.held.length = 0;
    const probePath = path.join(dir, '.page-cache-probe');
    const probe: FileHandle = await open(probePath, 'w');
    const proto = Object.getPrototypeOf(probe) as { sync(): Promise<void>; datasync(): Promise<void> };
    await probe.close();
    unlinkSync(probePath);
    for (const method of ['sync', 'datasync'] as const) {
      const original = proto[method];
      const { durable, calls } = this;
      // The spy's own `this` is the FileHandle, so the model is reached through a name of its own.
      // eslint-disable-next-line @typescript-eslint/no-this-alias
      const model = this;
      this.spies.push(
        jest.spyOn(proto, method).mockImplementation(async function (this: FileHandle) {
          calls[method]++;
          const id = identity(fstatSync(this.fd, { bigint: true }));
          const bytes = contentOf(this.fd);
          const size = fstatSync(this.fd).size;
          const started = ++model.started;
          if (model.holding) await new Promise<void>((release) => model.held.push({ release }));
          await original.call(this);
          // What the file held when the sync began is durable now (a truncation included), unless a sync
          // that began later has already finished (syncs of one file may overlap and finish out of order).
          const known = durable.get(id);
          if (!model.frozen && (!known || known.started < started)) durable.set(id, { size, started, bytes });
        }),
      );
    }
    // The log journal fdatasyncs through the callback API on its descriptor: recorded the same way.
    const fs = nodeFs();
    const originalFdatasync = fs.fdatasync;
    this.spies.push(
      jest.spyOn(fs, 'fdatasync').mockImplementation((fd: number, callback: (error: Error | null) => void) => {
        this.calls.datasync++;
        const id = identity(fstatSync(fd, { bigint: true }));
        const bytes = contentOf(fd);
        const size = fstatSync(fd).size;
        const started = ++this.started;
        const issue = () =>
          originalFdatasync(fd, (error) => {
            const known = this.durable.get(id);
            if (!error && !this.frozen && (!known || known.started < started))
              this.durable.set(id, { size, started, bytes });
            callback(error);
          });
        if (this.holding) this.held.push({ release: issue });
        else issue();
      }),
    );
  }

  /**
   * From now on each sync, once issued (what it covers fixed: the file as it is then), waits for the
   * test to `release()` it from `held`, so a test decides when, and in which order, syncs end.
   */
  hold(): void {
    this.holding = true;
  }

  /** Syncs no longer wait: those held are let go (after `freeze()`, they make nothing durable). */
  releaseAll(): void {
    this.holding = false;
    for (const h of this.held.splice(0)) h.release();
  }

  /** The power is cut now: syncs that complete from here on make nothing durable. */
  freeze(): void {
    this.frozen = true;
  }

  uninstall(): void {
    this.releaseAll();
    for (const s of this.spies.splice(0)) s.mockRestore();
  }

  /** Cuts every file under `dir` back to what its last sync made durable. */
  loseUnsynced(dir: string): void {
    this.crash(dir, () => 0, false);
  }

  /**
   * A power cut that kept part of what was not synced: each file keeps its durable prefix plus the
   * first `keep(unsyncedBytes)` bytes after it, with one of those flipped when `flip` (a torn write
   * that reached the disk as garbage). A file whose synced bytes were since cut or overwritten gets
   * them back when `undoRewrites(file)` says so (nothing after its last sync reached the disk).
   */
  crash(
    dir: string,
    keep: (unsyncedBytes: number) => number,
    flip: boolean,
    undoRewrites: (file: string) => boolean = () => false,
  ): void {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        this.crash(file, keep, flip, undoRewrites);
        continue;
      }
      const synced = this.durable.get(identity(statSync(file, { bigint: true })));
      if (synced && undoRewrites(file) && !readFileSync(file).subarray(0, synced.size).equals(synced.bytes)) {
        writeFileSync(file, synced.bytes);
        continue;
      }
      const size = statSync(file).size;
      const durable = Math.min(size, synced?.size ?? 0);
      const kept = durable + Math.min(size - durable, Math.max(0, Math.floor(keep(size - durable))));
      truncateSync(file, kept);
      if (flip && kept > durable) {
        const bytes = readFileSync(file);
        bytes[durable + ((kept - durable) >> 1)] ^= 0x5a;
        writeFileSync(file, bytes);
      }
    }
  }
}

/** The `node:fs` module the code under test calls (its functions looked up at each call), to spy on. */
export function nodeFs(): typeof import('node:fs') {
  return jest.requireActual<typeof import('node:fs')>('node:fs');
}

/**
 * What the file behind `fd` holds now, read through /proc (Linux) since the code under test may have
 * opened it write-only or for appending; a file already unlinked is still read there.
 */
function contentOf(fd: number): Buffer {
  return fstatSync(fd).isDirectory() ? Buffer.alloc(0) : readFileSync(`/proc/self/fd/${fd}`);
}

function identity(stats: BigIntStats): string {
  return `${stats.ino}:${stats.birthtimeNs}`;
}
