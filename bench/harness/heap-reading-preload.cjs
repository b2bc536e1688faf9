/**
 * Loaded into a benchmark's server process with `--expose-gc --require` (bench/harness/heap-reading.ts):
 * on SIGUSR2 it collects the whole heap and writes the process's memory use, as JSON, to the file named
 * by BENCH_HEAP_READING. A reading after a full collection counts what the process holds, not the garbage
 * it has yet to collect; the server's own code is not changed.
 */
'use strict';
const { writeFileSync, renameSync } = require('node:fs');

const file = process.env.BENCH_HEAP_READING;
if (file && typeof globalThis.gc === 'function') {
  process.on('SIGUSR2', () => {
    // Twice: what the first collection frees can let the second free more (weak references, finalizers).
    globalThis.gc();
    globalThis.gc();
    const usage = process.memoryUsage();
    // Written whole, then renamed: the reader never sees half a file.
    writeFileSync(
      `${file}.tmp`,
      JSON.stringify({ heapUsed: usage.heapUsed, rss: usage.rss, external: usage.external }),
    );
    renameSync(`${file}.tmp`, file);
  });
}
