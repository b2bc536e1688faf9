import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A server process's memory after a full collection (bytes). */
export interface HeapReading {
  heapUsed: number;
  rss: number;
  external: number;
}

/**
 * Memory readings of a server process started with `nodeArgs` and `env` (bench/harness/heap-reading-preload.cjs):
 * `read(pid)` asks it for one and waits for the answer.
 */
export class HeapReader {
  readonly nodeArgs = ['--expose-gc', '--require', join(__dirname, 'heap-reading-preload.cjs')];
  readonly env: { BENCH_HEAP_READING: string };

  constructor() {
    this.env = { BENCH_HEAP_READING: join(mkdtempSync(join(tmpdir(), 'cohort-heap-')), 'reading.json') };
  }

  async read(pid: number | undefined): Promise<HeapReading> {
    if (pid === undefined) throw new Error('the server is not running');
    const file = this.env.BENCH_HEAP_READING;
    rmSync(file, { force: true });
    process.kill(pid, 'SIGUSR2');
    const deadline = Date.now() + 30_000;
    while (!existsSync(file)) {
      if (Date.now() > deadline) throw new Error('the server gave no memory reading within 30 s');
      await new Promise((done) => setTimeout(done, 20));
    }
    return JSON.parse(readFileSync(file, 'utf8')) as HeapReading;
  }
}
