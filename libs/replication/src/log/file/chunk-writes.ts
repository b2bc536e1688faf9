import { writeSync, writevSync } from 'node:fs';
import type { PendingChunk, Segment } from './segment';

/** Puts a run of a segment's pending chunks into its file with one positioned writev (queued: async). */
export async function writeChunks(segment: Segment, chunks: PendingChunk[]): Promise<void> {
  const buffers = chunks.map((c) => c.bytes);
  const total = buffers.reduce((n, b) => n + b.length, 0);
  const position = chunks[0].position;
  const { bytesWritten } = await segment.handle!.writev(buffers, position);
  if (bytesWritten < total) {
    // Rare partial write: finish the rest as one buffer.
    const rest = Buffer.concat(buffers).subarray(bytesWritten);
    let done = 0;
    while (done < rest.length) {
      const r = await segment.handle!.write(rest, done, rest.length - done, position + bytesWritten + done);
      done += r.bytesWritten;
    }
  }
}

/** The same, now, on the calling thread (FileLog.writeNow). */
export function writeChunksNow(segment: Segment, chunks: PendingChunk[]): void {
  const fd = segment.handle!.fd;
  const buffers = chunks.map((c) => c.bytes);
  const total = buffers.reduce((n, b) => n + b.length, 0);
  const position = chunks[0].position;
  const written = writevSync(fd, buffers, position);
  if (written < total) {
    const rest = Buffer.concat(buffers).subarray(written);
    for (let done = 0; done < rest.length; ) done += writeSync(fd, rest, done, rest.length - done, position + written + done);
  }
}
