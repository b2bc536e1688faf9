import * as fc from 'fast-check';
import type { PartitionLog, StoredRecord } from '@cohort/replication';

/** A log under test plus the ways its machine can stop. */
export interface LogHarness {
  readonly log: PartitionLog;
  /** The machine dies: data not flushed may be lost or torn; `damage` picks what (harness-specific). */
  crash(damage: number, flip: boolean): Promise<void>;
  /** Clean restart: close, then open again. */
  reopen(): Promise<void>;
}

export type LogCommand =
  | { kind: 'append'; records: Array<{ key: number; value: number | null }>; bumpEpoch: boolean }
  | { kind: 'flush' }
  | { kind: 'tick'; ms: number }
  | { kind: 'truncate'; at: number }
  | { kind: 'compact'; at: number; retentionMs: number; appendMeanwhile: boolean }
  | { kind: 'crash'; damage: number; flip: boolean }
  | { kind: 'reopen' };

const KEYS = 5;

export const logCommands: fc.Arbitrary<LogCommand[]> = fc.array(
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('append' as const),
        records: fc.array(fc.record({ key: fc.nat(KEYS - 1), value: fc.option(fc.nat(99), { freq: 4 }) }), {
          minLength: 1,
          maxLength: 4,
        }),
        bumpEpoch: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
      }),
    },
    { weight: 3, arbitrary: fc.constant({ kind: 'flush' as const }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 50 }) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('compact' as const),
        at: fc.nat(),
        retentionMs: fc.constantFrom(0, 20, 1_000_000),
        appendMeanwhile: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), damage: fc.nat(), flip: fc.boolean() }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'reopen' as const }) },
  ),
  { maxLength: 40 },
);

interface ModelRecord {
  offset: number;
  epoch: number;
  key: string;
  value: string | null;
}

/**
 * Runs `commands` against the harness and a model (every record ever appended and not truncated),
 * checking after each step that:
 * - offsets strictly increase and every stored record is the model's record at that offset;
 * - replaying the log gives the model's state (latest value per key; tombstoned keys stay deleted),
 *   so compaction loses nothing and resurrects nothing;
 * - a crash keeps every flushed record (the replay below the flushed offset is unchanged), and what
 *   it keeps beyond is the model's or what an unflushed truncation removed;
 * - a clean reopen gives back exactly the same records.
 */
export async function runLogCommands(harness: LogHarness, commands: LogCommand[]): Promise<void> {
  let model: ModelRecord[] = [];
  let now = 1_000;
  let epoch = 0;
  /** Highest offset ever compacted below (only flushed data is): like Kafka, truncation never goes below the HW it compacted to. */
  let floor = 0;
  /** Records removed by truncations since the last flush: a crash may bring them back. */
  let undone: ModelRecord[] = [];
  for (const cmd of commands) {
    const log = harness.log;
    switch (cmd.kind) {
      case 'append': {
        if (cmd.bumpEpoch) epoch++;
        // The model is what was asked for, at the offsets a log must give it; not what the log answered.
        const base = log.logEndOffset;
        const expected = cmd.records.map((r, i): ModelRecord => ({
          offset: base + i,
          epoch,
          key: `k${r.key}`,
          value: r.value === null ? null : `v${r.value}`,
        }));
        const batch = log.appendAsLeader(
          cmd.records.map((r) => ({
            key: Buffer.from(`k${r.key}`),
            value: r.value === null ? null : Buffer.from(`v${r.value}`),
            timestamp: now,
          })),
          epoch,
        );
        expect(batch.records.map(toModel)).toEqual(expected);
        model.push(...expected);
        break;
      }
      case 'flush':
        await log.flush();
        expect(log.flushedOffset).toBe(log.logEndOffset);
        undone = [];
        break;
      case 'tick':
        now += cmd.ms;
        break;
      case 'truncate': {
        const to = floor + (cmd.at % (log.logEndOffset - floor + 1));
        log.truncateTo(to);
        undone.push(...model.filter((r) => r.offset >= to));
        model = model.filter((r) => r.offset < to);
        expect(log.logEndOffset).toBe(to);
        break;
      }
      case 'compact': {
        const upTo = floor + (cmd.at % (log.logEndOffset - floor + 1));
        const leo = log.logEndOffset;
        const limit = Math.min(upTo, log.flushedOffset);
        const compacting = log.compact(upTo, now, cmd.retentionMs);
        if (cmd.appendMeanwhile) {
          // Appends go on while the cleaner works (it yields between slices of batches).
          const during: ModelRecord = { offset: log.logEndOffset, epoch, key: 'k0', value: 'during' };
          const batch = log.appendAsLeader(
            [{ key: Buffer.from('k0'), value: Buffer.from('during'), timestamp: now }],
            epoch,
          );
          expect(batch.records.map(toModel)).toEqual([during]);
          model.push(during);
        }
        await compacting;
        floor = Math.max(floor, limit);
        expect(log.logEndOffset).toBe(leo + (cmd.appendMeanwhile ? 1 : 0));
        break;
      }
      case 'crash': {
        const flushed = log.flushedOffset;
        const before = replayModel(model.filter((r) => r.offset < flushed));
        await harness.crash(cmd.damage, cmd.flip);
        const after = harness.log;
        expect(after.logEndOffset).toBeGreaterThanOrEqual(flushed);
        expect(replayStored(readAll(after).filter((r) => r.offset < flushed))).toEqual(before);
        // What survived beyond the flushed offset is the new truth. Each record there must be the model's,
        // or one that a truncation since the last flush removed: the crash may have undone that truncation.
        const beyond = readAll(after)
          .filter((r) => r.offset >= flushed)
          .map(toModel);
        for (const r of beyond) expect([...model, ...undone].filter((m) => m.offset === r.offset)).toContainEqual(r);
        model = [...model.filter((r) => r.offset < flushed), ...beyond];
        undone = [];
        break;
      }
      case 'reopen': {
        const before = readAll(log).map(toModel);
        const leo = log.logEndOffset;
        await harness.reopen();
        expect(readAll(harness.log).map(toModel)).toEqual(before);
        expect(harness.log.logEndOffset).toBe(leo);
        break;
      }
    }
    checkAgainstModel(harness.log, model);
    epoch = Math.max(epoch, model.length > 0 ? model[model.length - 1].epoch : 0);
  }
}

function checkAgainstModel(log: PartitionLog, model: ModelRecord[]): void {
  const stored = readAll(log);
  const byOffset = new Map(model.map((r) => [r.offset, r]));
  let previous = -1;
  for (const r of stored) {
    expect(r.offset).toBeGreaterThan(previous);
    previous = r.offset;
    expect(toModel(r)).toEqual(byOffset.get(r.offset));
  }
  expect(replayStored(stored)).toEqual(replayModel(model));
}

function readAll(log: PartitionLog): StoredRecord[] {
  return log.read(0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER).flatMap((b) => b.records);
}

function toModel(r: StoredRecord): ModelRecord {
  return {
    offset: r.offset,
    epoch: r.leaderEpoch,
    key: r.key.toString(),
    value: r.value === null ? null : r.value.toString(),
  };
}

function replayModel(records: ModelRecord[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const r of records) {
    if (r.value === null) state.delete(r.key);
    else state.set(r.key, r.value);
  }
  return state;
}

function replayStored(records: StoredRecord[]): Map<string, string> {
  return replayModel(records.map(toModel));
}
