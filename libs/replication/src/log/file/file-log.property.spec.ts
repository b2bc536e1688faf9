import { readdirSync, readFileSync, writeFileSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import * as fc from 'fast-check';
import { readValidHeader } from '../batch-codec';
import { logCommands, runLogCommands, type LogHarness, makeTempDir, removeDir } from '@cohort/replication/testing';
import { FileLog } from './file-log';

const SEGMENT_BYTES = 160;

/** Byte ranges of the segment files from the first frame that may hold unflushed data onwards. */
function unflushedRegion(dir: string, flushedOffset: number): Array<{ file: string; from: number; size: number }> {
  const files = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
  const region: Array<{ file: string; from: number; size: number }> = [];
  let reached = false;
  for (const name of files) {
    const file = path.join(dir, name);
    const bytes = readFileSync(file);
    let pos = 0;
    if (!reached) {
      for (let h = readValidHeader(bytes, pos); h && h.lastOffset < flushedOffset; h = readValidHeader(bytes, pos)) pos += h.size;
      reached = pos < bytes.length;
      if (!reached) continue;
    }
    region.push({ file, from: pos, size: bytes.length });
  }
  return region;
}

class FileHarness implements LogHarness {
  log!: FileLog;

  constructor(readonly dir: string) {}

  async open(): Promise<this> {
    this.log = await FileLog.open(this.dir, { segmentBytes: SEGMENT_BYTES });
    return this;
  }

  /** The process dies; then one byte past the flushed data is torn off (with all after it) or flipped. */
  async crash(damage: number, flip: boolean): Promise<void> {
    const flushed = this.log.flushedOffset;
    await this.log.abort();
    const region = unflushedRegion(this.dir, flushed);
    const total = region.reduce((n, r) => n + r.size - r.from, 0);
    let at = total === 0 ? 0 : damage % total;
    for (const r of region) {
      if (at >= r.size - r.from) {
        at -= r.size - r.from;
        continue;
      }
      if (flip) {
        const bytes = readFileSync(r.file);
        bytes[r.from + at] ^= 0x5a;
        writeFileSync(r.file, bytes);
      } else {
        truncateSync(r.file, r.from + at);
      }
      break;
    }
    await this.open();
  }

  async reopen(): Promise<void> {
    await this.log.close();
    await this.open();
    expect(this.log.recovery.clean).toBe(true);
  }
}

describe('FileLog properties', () => {
  it('never loses a flushed record across crashes that tear or corrupt unflushed bytes, and reopens to the same content', async () => {
    await fc.assert(
      fc.asyncProperty(logCommands, async (commands) => {
        const dir = makeTempDir('cohort-fileprop-');
        const harness = await new FileHarness(dir).open();
        try {
          await runLogCommands(harness, commands);
        } finally {
          await harness.log.close().catch(() => undefined);
          removeDir(dir);
        }
      }),
      { numRuns: 120 },
    );
  }, 120_000);
});
