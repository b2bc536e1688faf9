import * as fc from 'fast-check';
import { MemoryLog } from './memory-log';
import { logCommands, runLogCommands, type LogHarness } from '@cohort/replication/testing';

class MemoryHarness implements LogHarness {
  readonly log = new MemoryLog();

  async crash(damage: number): Promise<void> {
    // The OS may have written any prefix of the unflushed batches before the power went.
    this.log.crash(damage % 4);
  }

  async reopen(): Promise<void> {
    await this.log.close();
    this.log.crash();
  }
}

describe('MemoryLog properties', () => {
  it('never loses a flushed record, never resurrects a compacted-away delete, keeps offsets increasing', async () => {
    await fc.assert(
      fc.asyncProperty(logCommands, async (commands) => runLogCommands(new MemoryHarness(), commands)),
      { numRuns: 200 },
    );
  });
});
