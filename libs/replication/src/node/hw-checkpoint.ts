import type { CheckpointStorage } from '../storage/checkpoint-storage.port';

const NAME = 'replication-offset-checkpoint';

/**
 * The HW checkpoint (Kafka's `replication-offset-checkpoint`): `0`, the count, then
 * `partition hw` per line. It may be stale; it only bounds visibility after a restart, never truncation.
 */
export function writeHighWatermarks(storage: CheckpointStorage, hws: ReadonlyMap<number, number>): void {
  const lines = [...hws].sort((a, b) => a[0] - b[0]).map(([p, hw]) => `${p} ${hw}`);
  storage.write(NAME, ['0', String(lines.length), ...lines].join('\n') + '\n');
}

/** Reads the checkpoint; a missing or unreadable one yields no HWs (they start at 0, clamped later). */
export function readHighWatermarks(storage: CheckpointStorage): Map<number, number> {
  const out = new Map<number, number>();
  const text = storage.read(NAME);
  if (text === null) return out;
  const lines = text.split('\n').filter((l) => l.length > 0);
  if (lines[0] !== '0') return out;
  for (const line of lines.slice(2)) {
    const [p, hw] = line.split(' ').map(Number);
    if (Number.isInteger(p) && Number.isInteger(hw)) out.set(p, hw);
  }
  return out;
}
