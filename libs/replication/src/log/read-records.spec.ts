import { FileLog } from './file/file-log';
import { MemoryLog } from './memory-log';
import type { PartitionLog } from './partition-log';
import { readRecords, scanRecords } from './read-records';
import { makeTempDir, rec, removeDir } from '@cohort/replication/testing';

type Seen = Array<[number, string, string | null]>;

/** Every chunk of [from, upTo) as readRecords gives it and as scanRecords visits it, with each next offset. */
function bothWays(
  log: PartitionLog,
  from: number,
  upTo: number,
  maxRecords: number,
): { read: Seen[]; scanned: Seen[] } {
  const read: Seen[] = [];
  const scanned: Seen[] = [];
  for (let next = from; next < Math.min(upTo, log.logEndOffset);) {
    const result = readRecords(log, next, upTo, maxRecords);
    read.push([
      ...result.records.map((r): [number, string, string | null] => [
        r.offset,
        r.key.toString(),
        r.value?.toString() ?? null,
      ]),
      [result.nextOffset, 'next', null],
    ]);
    const chunk: Seen = [];
    const nextOffset = scanRecords(log, next, upTo, maxRecords, (offset, key, ks, ke, value, vs, ve) => {
      chunk.push([offset, key.toString('utf8', ks, ke), value === null ? null : value.toString('utf8', vs, ve)]);
    });
    scanned.push([...chunk, [nextOffset, 'next', null]]);
    next = result.nextOffset;
  }
  return { read, scanned };
}

describe('scanRecords (PartitionStore.scan)', () => {
  let dir: string;
  beforeEach(() => (dir = makeTempDir()));
  afterEach(() => removeDir(dir));

  async function filled(log: PartitionLog): Promise<PartitionLog> {
    log.appendAsLeader([rec('a', '1'), rec('b', null), rec('c', '3')], 1);
    log.appendAsLeader([rec('d', '4')], 1);
    await log.flush();
    log.appendAsLeader([rec('e', '5'), rec('a', 'six')], 2);
    return log;
  }

  it('visits in place exactly the records and next offsets that readRecords returns, on segment files and in memory', async () => {
    const file = await filled(await FileLog.open(dir, { segmentBytes: 120 }));
    const memory = await filled(new MemoryLog());
    try {
      for (const log of [file, memory]) {
        for (const [from, upTo, max] of [
          [0, 100, 100],
          [1, 5, 2],
          [2, 6, 1],
          [4, 4, 10],
        ]) {
          const { read, scanned } = bothWays(log, from, upTo, max);
          expect(scanned).toEqual(read);
        }
        expect(bothWays(log, 1, 100, 100).scanned[0]).toEqual([
          [1, 'b', null],
          [2, 'c', '3'],
          [3, 'd', '4'],
          [4, 'e', '5'],
          [5, 'a', 'six'],
          [6, 'next', null],
        ]);
      }
    } finally {
      await file.close();
    }
  });
});
