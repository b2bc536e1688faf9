import type { EpochEntry } from './epoch-entry';

/**
 * Kafka's `leader-epoch-checkpoint` text format (CheckpointFile): line 1 the version `0`, line 2 the
 * entry count, then one `epoch startOffset` line per entry.
 */
export function formatEpochCheckpoint(entries: readonly EpochEntry[]): string {
  return ['0', String(entries.length), ...entries.map((e) => `${e.epoch} ${e.startOffset}`)].join('\n') + '\n';
}

/** Parses the format above; throws on anything malformed (a corrupt checkpoint must not be half-trusted). */
export function parseEpochCheckpoint(text: string): EpochEntry[] {
  const lines = text.split('\n').filter((l) => l.length > 0);
  if (lines[0] !== '0') throw new Error(`leader-epoch-checkpoint: unsupported version ${JSON.stringify(lines[0])}`);
  const count = Number(lines[1]);
  if (!Number.isInteger(count) || count !== lines.length - 2) {
    throw new Error(`leader-epoch-checkpoint: expected ${lines[1]} entries, found ${lines.length - 2}`);
  }
  return lines.slice(2).map((line) => {
    const [epoch, startOffset] = line.split(' ').map(Number);
    if (!Number.isInteger(epoch) || !Number.isInteger(startOffset))
      throw new Error(`leader-epoch-checkpoint: bad line ${JSON.stringify(line)}`);
    return { epoch, startOffset };
  });
}
