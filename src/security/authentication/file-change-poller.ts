import { statSync } from 'node:fs';

/**
 * Calls `onChange` when a file's identity, size or times differ from the last look. Created before the
 * caller reads the file, so a change made between that read and the first poll is still seen (fs.watchFile
 * takes its baseline asynchronously and would miss it); polling also sees an editor's write-and-rename,
 * which fs.watch on the file loses. A missing file counts as a change too (and again when it is back).
 */
export class FileChangePoller {
  private last: string;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly path: string,
    private readonly intervalMs: number,
    private readonly onChange: () => void,
  ) {
    this.last = this.signature();
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.check(), this.intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private check(): void {
    const now = this.signature();
    if (now === this.last) return;
    this.last = now;
    this.onChange();
  }

  private signature(): string {
    try {
      const stat = statSync(this.path);
      return `${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
    } catch (error) {
      return `missing:${(error as NodeJS.ErrnoException).code ?? ''}`;
    }
  }
}
