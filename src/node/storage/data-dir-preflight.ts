import { closeSync, fsyncSync, openSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from '@cohort/replication';
import { DataDirLock } from './data-dir-lock';
import { StorageStartError } from './storage-start-error';

/** What a node must be able to write before it starts: as much as a storage fault waits for before writes resume. */
export const START_PROBE_BYTES = 1024 * 1024;
const PROBE_FILE = '.write-probe';

/**
 * Before anything starts (and so before anything can fail with a stack trace): takes the DATA_DIR lock
 * and proves the directory takes writes, by writing and fsyncing START_PROBE_BYTES. A full or
 * unwritable disk, or a directory another node holds, ends the start with StorageStartError, one line
 * that says which. The lock is the caller's to release (`DataDirLock.releaseFor`) when the node stops.
 */
export function prepareDataDir(dataDir: string): DataDirLock {
  const lock = DataDirLock.acquire(dataDir);
  const probe = join(dataDir, PROBE_FILE);
  let fd: number | undefined;
  try {
    fd = openSync(probe, 'w');
    const bytes = Buffer.alloc(START_PROBE_BYTES);
    for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done, bytes.length - done, done);
    fsyncSync(fd);
  } catch (error) {
    lock.release();
    throw new StorageStartError(startFailure(dataDir, error));
  } finally {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(probe);
    } catch {
      // never created
    }
  }
  return lock;
}

function startFailure(dataDir: string, error: unknown): string {
  const code = errnoCode(error);
  const cause = error instanceof Error ? error.message : String(error);
  if (code === 'ENOSPC' || code === 'EDQUOT')
    return `DATA_DIR ${dataDir} is full: fewer than ${START_PROBE_BYTES} bytes can be written there (${cause}); free some space or give the node a bigger disk`;
  return `DATA_DIR ${dataDir} cannot be written (${cause}); check its permissions and that its file system is mounted read-write`;
}
