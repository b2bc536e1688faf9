import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A real, small tmpfs file system (needs root, as the network-namespace tests do): what a DATA_DIR on a
 * disk that fills up looks like. `fill` takes all but some bytes with a file of its own, as another
 * tenant of the disk would; `resize` grows (or shrinks) it live, as an operator adding space would.
 */
export class TmpfsMount {
  private constructor(readonly dir: string) {}

  static create(size: string): TmpfsMount {
    const dir = mkdtempSync(join(tmpdir(), 'cohort-tmpfs-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'pipe' });
    return new TmpfsMount(dir);
  }

  /** Bytes still free for a file. */
  freeBytes(): number {
    const stats = statfsSync(this.dir);
    return stats.bavail * stats.bsize;
  }

  /** Writes a filler file (outside DATA_DIR's own files) so that only about `leaveBytes` stay free. */
  fill(leaveBytes: number, name = 'filler'): void {
    const size = Math.max(0, this.freeBytes() - leaveBytes);
    writeFileSync(join(this.dir, name), Buffer.alloc(size));
  }

  resize(size: string): void {
    execFileSync('mount', ['-o', `remount,size=${size}`, this.dir], { stdio: 'pipe' });
  }

  /** Remounts read-only (`ro`) or read-write (`rw`). */
  remount(mode: 'ro' | 'rw'): void {
    execFileSync('mount', ['-o', `remount,${mode}`, this.dir], { stdio: 'pipe' });
  }

  remove(): void {
    try {
      execFileSync('umount', ['-l', this.dir], { stdio: 'pipe' });
    } catch {
      // not mounted (any more)
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}
