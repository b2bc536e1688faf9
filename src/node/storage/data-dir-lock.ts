import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { tryLock } from 'fs-native-extensions';
import { StorageStartError } from './storage-start-error';

/** The lock file in DATA_DIR (Kafka's `.lock` in each log directory). */
export const DATA_DIR_LOCK_FILE = '.lock';

/** Who holds a DATA_DIR, as the lock file says (written by the holder once it has the lock). */
export interface DataDirHolder {
  pid: number;
  host: string;
  since: string;
}

/** The locks this process holds, by DATA_DIR: a node releases its own when it stops. */
const held = new Map<string, DataDirLock>();

/**
 * One node per data directory, as Kafka's LogManager locks each log directory: an exclusive OS-level
 * lock on `DATA_DIR/.lock` for the node's whole life. The kernel drops it when the process dies, even
 * by SIGKILL, so a crash never leaves it stuck, and it holds across containers sharing the volume. The
 * file also says who holds it (pid, host, since when), for the message a second node refuses with.
 */
export class DataDirLock {
  private released = false;

  private constructor(
    readonly dataDir: string,
    private readonly fd: number,
  ) {}

  /** Takes the lock on `dataDir` (created if missing), or throws StorageStartError naming the holder. */
  static acquire(dataDir: string, now: Date = new Date()): DataDirLock {
    const path = join(dataDir, DATA_DIR_LOCK_FILE);
    let fd: number;
    try {
      mkdirSync(dataDir, { recursive: true });
      fd = openSync(path, 'a+');
    } catch (error) {
      throw new StorageStartError(`cannot open DATA_DIR ${dataDir}: ${(error as Error).message}`);
    }
    if (!tryLock(fd)) {
      closeSync(fd);
      throw new StorageStartError(
        `DATA_DIR ${dataDir} is in use by another Cohort node (${describeHolder(readHolder(path))}): a data directory serves one node at a time; stop that node or give this one its own DATA_DIR`,
      );
    }
    const holder: DataDirHolder = { pid: process.pid, host: hostname(), since: now.toISOString() };
    try {
      ftruncateSync(fd, 0);
      writeSync(fd, `${JSON.stringify(holder)}\n`, 0);
    } catch {
      // Who holds it is only for the message; the lock itself is what counts.
    }
    const lock = new DataDirLock(dataDir, fd);
    held.set(dataDir, lock);
    return lock;
  }

  /** Releases the lock this process holds on `dataDir`, if any (the node stopped). */
  static releaseFor(dataDir: string): void {
    held.get(dataDir)?.release();
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    if (held.get(this.dataDir) === this) held.delete(this.dataDir);
    // Closing the file drops the lock; the file stays, its content is overwritten by the next holder.
    closeSync(this.fd);
  }
}

function readHolder(path: string): Partial<DataDirHolder> | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as Partial<DataDirHolder>;
  } catch {
    return undefined;
  }
}

function describeHolder(holder: Partial<DataDirHolder> | undefined): string {
  if (!holder || typeof holder.pid !== 'number') return 'holder unknown';
  return `pid ${holder.pid}${holder.host ? ` on host ${holder.host}` : ''}${holder.since ? ` since ${holder.since}` : ''}`;
}
