import * as fs from 'node:fs';
import * as path from 'node:path';
import type { CheckpointStorage } from './checkpoint-storage.port';

/**
 * Checkpoints as files under a directory (DATA_DIR): written to `<name>.tmp`, fsynced, renamed over the
 * old file and the directory fsynced — Kafka's CheckpointFile — so a crash leaves the old or the new
 * content, never a torn one (I23). Names may contain `/` (a subdirectory per partition).
 */
export class FileCheckpointStorage implements CheckpointStorage {
  constructor(private readonly dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  read(name: string): string | null {
    try {
      return fs.readFileSync(this.pathOf(name), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw e;
    }
  }

  write(name: string, content: string): void {
    const target = this.pathOf(name);
    const dir = path.dirname(target);
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${target}.tmp`;
    const fd = fs.openSync(tmp, 'w');
    try {
      fs.writeFileSync(fd, content);
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, target);
    syncDirectory(dir);
  }

  remove(name: string): void {
    fs.rmSync(this.pathOf(name), { force: true });
  }

  private pathOf(name: string): string {
    const resolved = path.resolve(this.dir, name);
    if (!resolved.startsWith(path.resolve(this.dir) + path.sep))
      throw new Error(`checkpoint name escapes the data directory: ${name}`);
    return resolved;
  }
}

/** Makes a rename durable; some platforms cannot open directories, where the rename is durable already. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = fs.openSync(dir, 'r');
    fs.fsyncSync(fd);
  } catch {
    // Not supported here (e.g. Windows): nothing more can be done.
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
  }
}
