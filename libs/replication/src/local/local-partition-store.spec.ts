import { readdirSync, readFileSync, rmSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ErrorCode } from '@cohort/protocol';
import type { LeadershipListener } from '../api/partition-store.port';
import { CLEAN_CLOSE_INDEX } from '../log/file/clean-close-index';
import type { LogDamage, RecoveryReport } from '../log/file/log-recovery';
import { failSyncs, makeTempDir, nodeFs, PageCacheModel, rec, removeDir } from '@cohort/replication/testing';
import { ManualClock } from '../time/manual-clock';
import { LocalPartitionStore, type LocalPartitionStoreOptions } from './local-partition-store';

const ALL = Number.MAX_SAFE_INTEGER;

function recordingListener() {
  const events: string[] = [];
  const listener: LeadershipListener = {
    onBecomeLeader: (p, e) => events.push(`lead ${p}@${e}`),
    onResign: (p, e) => events.push(`resign ${p}@${e}`),
  };
  return { events, listener };
}

describe('LocalPartitionStore', () => {
  let dataDir: string;
  let clock: ManualClock;
  const stores: LocalPartitionStore[] = [];
  const open = async (options: Partial<LocalPartitionStoreOptions> = {}) => {
    const store = await LocalPartitionStore.open({ dataDir, clock, numPartitions: 3, cleaner: false, ...options });
    stores.push(store);
    return store;
  };

  beforeEach(() => {
    dataDir = makeTempDir('cohort-store-');
    clock = new ManualClock();
  });
  let restoreDisk: (() => void) | undefined;
  afterEach(async () => {
    restoreDisk?.();
    restoreDisk = undefined;
    await Promise.all(stores.splice(0).map((s) => s.close()));
    removeDir(dataDir);
  });

  it('leads every partition once its log is open, telling early and late subscribers', async () => {
    const store = new LocalPartitionStore({ dataDir, clock, numPartitions: 3, cleaner: false });
    stores.push(store);
    const early = recordingListener();
    store.subscribe(early.listener);
    expect(early.events).toEqual([]);
    expect(() => store.append(0, 0, [rec('a', '1')])).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.NOT_COORDINATOR }),
    );
    await store.start();
    expect(early.events).toEqual(['lead 0@0', 'lead 1@0', 'lead 2@0']);
    const late = recordingListener();
    store.subscribe(late.listener);
    expect(late.events).toEqual(['lead 0@0', 'lead 1@0', 'lead 2@0']);
    expect(
      readdirSync(dataDir)
        .filter((f) => f.startsWith('__consumer_offsets-'))
        .sort(),
    ).toEqual(['__consumer_offsets-0', '__consumer_offsets-1', '__consumer_offsets-2']);
  });

  it('commits with LOG_FLUSH_POLICY=always only once an fsync of the log journal covered the records', async () => {
    const store = await open({ flushPolicy: 'always' });
    const datasync = jest.spyOn(nodeFs(), 'fdatasync');
    const { baseOffset, lastOffset } = store.append(1, 0, [rec('a', '1'), rec('b', '1')]);
    expect([baseOffset, lastOffset]).toEqual([0, 1]);
    expect(store.offsets(1)).toEqual({ logStartOffset: 0, logEndOffset: 2, highWatermark: 0 });
    try {
      await store.awaitCommit(1, 0, lastOffset, 5_000);
      expect(datasync).toHaveBeenCalledTimes(1);
    } finally {
      datasync.mockRestore();
    }
    expect(store.offsets(1).highWatermark).toBe(2);
    await expect(store.awaitCommit(1, 0, 0, 5_000)).resolves.toBeUndefined();
  });

  it('keeps every commit acknowledged under LOG_FLUSH_POLICY=always through a power cut, restarting under either policy', async () => {
    const disk = new PageCacheModel();
    await disk.install(dataDir);
    try {
      for (const [round, next] of [
        [0, 'always'],
        [1, 'replicated'],
      ] as const) {
        const store = await open({ flushPolicy: 'always' });
        for (let p = 0; p < 3; p++) {
          const { lastOffset } = store.append(p, store.leaderEpoch, [rec(`k${round}-${p}`, `v${round}`)]);
          await store.awaitCommit(p, store.leaderEpoch, lastOffset, 5_000);
        }
        // The process dies: nothing more reaches the disk, and whatever was not synced is lost.
        const internals = store as unknown as {
          partitions: Array<{ log: { abort(): Promise<void> } }>;
          journal: { abort(): Promise<void> };
        };
        await Promise.all(internals.partitions.map((p) => p.log.abort()));
        await internals.journal.abort();
        stores.splice(stores.indexOf(store), 1);
        for (const dir of readdirSync(dataDir))
          if (dir.startsWith('__consumer_offsets-') || dir === 'log-journal')
            disk.loseUnsynced(path.join(dataDir, dir));

        const reports: unknown[] = [];
        const reopened = await open({ flushPolicy: next, onJournalRecovery: (r) => reports.push(r) });
        for (let p = 0; p < 3; p++) {
          const keys = (await reopened.read(p, 0, ALL, 10)).records.map((r) => r.key.toString());
          expect(keys).toEqual(Array.from({ length: round + 1 }, (_, r) => `k${r}-${p}`));
        }
        expect(reports).toEqual([expect.objectContaining({ batchesRedone: 3 })]);
        await reopened.close();
        stores.splice(stores.indexOf(reopened), 1);
        expect(readdirSync(path.join(dataDir, 'log-journal'))).toEqual([]);
      }
    } finally {
      disk.uninstall();
    }
  });

  it('commits with LOG_FLUSH_POLICY=replicated once written to the OS, without an fsync', async () => {
    const store = await open({ flushPolicy: 'replicated' });
    store.append(0, 0, [rec('warm', 'up')]);
    await store.awaitCommit(0, 0, 0, 5_000);
    const handle = (store as unknown as { partitions: Array<{ log: { segments: Array<{ handle: object }> } }> })
      .partitions[0].log.segments[0].handle;
    const sync = jest.spyOn(Object.getPrototypeOf(handle), 'sync');
    const { lastOffset } = store.append(0, 0, [rec('a', '1')]);
    expect(store.offsets(0).highWatermark).toBe(1);
    await store.awaitCommit(0, 0, lastOffset, 5_000);
    expect(store.offsets(0).highWatermark).toBe(2);
    expect(sync).not.toHaveBeenCalled();
    sync.mockRestore();
  });

  it('fails awaitCommit with REQUEST_TIMED_OUT when the commit takes longer than the timeout', async () => {
    const store = await open();
    const { lastOffset } = store.append(0, 0, [rec('a', '1')]);
    const waiting = store.awaitCommit(0, 0, lastOffset, 10);
    clock.advance(10);
    await expect(waiting).rejects.toMatchObject({ errorCode: ErrorCode.REQUEST_TIMED_OUT });
    await store.awaitCommit(0, 0, lastOffset, 1_000);
  });

  it('keeps data across a restart and bumps the leader epoch, fencing the old one', async () => {
    const first = await open();
    first.append(2, 0, [rec('g', 'v1')]);
    const { lastOffset } = first.append(2, 0, [rec('g', 'v2')]);
    await first.awaitCommit(2, 0, lastOffset, 1_000);
    await first.close();

    const second = await open();
    expect(second.leaderEpoch).toBe(1);
    const read = await second.read(2, 0, ALL, 100);
    expect(read.records.map((r) => [r.offset, r.leaderEpoch, r.value?.toString()])).toEqual([
      [0, 0, 'v1'],
      [1, 0, 'v2'],
    ]);
    expect(read.nextOffset).toBe(2);
    expect(second.offsets(2)).toEqual({ logStartOffset: 0, logEndOffset: 2, highWatermark: 2 });
    expect(() => second.append(2, 0, [rec('g', 'v3')])).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.NOT_COORDINATOR }),
    );
    expect(second.append(2, 1, [rec('g', 'v3')]).baseOffset).toBe(2);
    await second.close();
    expect((await open()).leaderEpoch).toBe(2);
  });

  it('reports a torn tail cut on open through onRecovery', async () => {
    const first = await open();
    first.append(1, 0, [rec('a', '1')]);
    const { lastOffset } = first.append(1, 0, [rec('b', '1')]);
    await first.awaitCommit(1, 0, lastOffset, 1_000);
    await first.close();
    // As a crash would leave it: no index of a clean close, and the last write torn.
    rmSync(path.join(dataDir, '__consumer_offsets-1', CLEAN_CLOSE_INDEX));
    const file = path.join(dataDir, '__consumer_offsets-1', '00000000000000000000.log');
    truncateSync(file, statSync(file).size - 5);

    const reports: Array<[number, RecoveryReport]> = [];
    const second = await open({ onRecovery: (p, r) => reports.push([p, r]) });
    expect(reports.map(([p, r]) => [p, r.clean])).toEqual([
      [0, true],
      [1, false],
      [2, true],
    ]);
    expect(reports[1][1].truncatedTails).toEqual([expect.objectContaining({ file, keptUpToOffset: 1 })]);
    expect(second.offsets(1).logEndOffset).toBe(1);
  });

  it('leaves unserved, files untouched, a partition whose log lost what a clean close had listed, unless cutting it is allowed', async () => {
    const first = await open();
    for (const key of ['a', 'b', 'c']) first.append(1, 0, [rec(key, '1')]);
    const last = first.append(0, 0, [rec('other', '1')]);
    await first.awaitCommit(0, 0, last.lastOffset, 1_000);
    await first.close();
    const file = path.join(dataDir, '__consumer_offsets-1', '00000000000000000000.log');
    const bytes = readFileSync(file);
    bytes[bytes.length - 30] ^= 1;
    writeFileSync(file, bytes);

    const damaged: Array<[number, LogDamage]> = [];
    const second = await open({ onDamagedPartition: (p, d) => damaged.push([p, d]) });
    expect(damaged).toEqual([[1, expect.objectContaining({ file, from: 2, to: 3 })]]);
    expect(second.damagedPartitions.get(1)).toEqual(damaged[0][1]);
    expect(readFileSync(file).equals(bytes)).toBe(true);
    expect(() => second.append(1, second.leaderEpoch, [rec('d', '1')])).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR }),
    );
    expect((await second.read(0, 0, ALL, 10)).records.map((r) => r.key.toString())).toEqual(['other']);
    await second.close();

    const reports: RecoveryReport[] = [];
    const third = await open({ truncateOnCorruption: true, onRecovery: (p, r) => p === 1 && reports.push(r) });
    expect(third.damagedPartitions.size).toBe(0);
    expect(reports[0].damage).toEqual(expect.objectContaining({ from: 2, to: 3 }));
    expect((await third.read(1, 0, ALL, 10)).records.map((r) => r.key.toString())).toEqual(['a', 'b']);
  });

  it('on close resigns every partition, failing pending commits with NOT_COORDINATOR, and refuses further work', async () => {
    const store = await open();
    const { events, listener } = recordingListener();
    store.subscribe(listener);
    const { lastOffset } = store.append(0, 0, [rec('a', '1')]);
    const pending = store.awaitCommit(0, 0, lastOffset, 60_000);
    await store.close();
    await expect(pending).rejects.toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });
    expect(events.slice(3)).toEqual(['resign 0@0', 'resign 1@0', 'resign 2@0']);
    expect(() => store.append(0, 0, [rec('b', '1')])).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.NOT_COORDINATOR }),
    );
    await expect(store.awaitCommit(0, 0, 0, 10)).rejects.toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });
    await expect(store.read(0, 0, ALL, 10)).rejects.toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });

    const reopened = await open();
    expect((await reopened.read(0, 0, ALL, 10)).records.map((r) => r.key.toString())).toEqual(['a']);
  });

  it.each(['always', 'replicated'] as const)(
    'under %s, a storage fault fails pending commits and refuses writes with KAFKA_STORAGE_ERROR, serves reads, and heals by itself: what failed is dropped, nothing committed is lost',
    async (flushPolicy) => {
      const faults: string[] = [];
      const healed: number[] = [];
      const store = await open({
        flushPolicy,
        onStorageFault: (fault) => faults.push(fault.code ?? '?'),
        onStorageHealed: (_fault, _downMs, attempts) => healed.push(attempts),
      });
      const { events, listener } = recordingListener();
      store.subscribe(listener);
      const committed = store.append(2, 0, [rec('a', '1')]);
      await store.awaitCommit(2, 0, committed.lastOffset, 1_000);

      // `always` fsyncs the journal; `replicated` only fsyncs on a checkpoint: fail the write itself there.
      const disk = await failSyncs(dataDir);
      let full = true;
      restoreDisk = () => disk.restore();
      const log = (
        store as unknown as { byNumber: Map<number, { log: { awaitWritten(): Promise<void> } }> }
      ).byNumber.get(2)!.log;
      if (flushPolicy === 'replicated') {
        const io = (log as unknown as { io: { run(op: () => Promise<void>): Promise<void> } }).io;
        // A write that fails while the disk is full, and is written again once it is not.
        void io
          .run(async () => {
            if (full) throw Object.assign(new Error('ENOSPC: no space left'), { code: 'ENOSPC' });
          })
          .catch(() => undefined);
      }
      const pending = store.append(2, 0, [rec('b', '2')]);
      await expect(store.awaitCommit(2, 0, pending.lastOffset, 60_000)).rejects.toMatchObject({
        errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
      });
      expect(faults).toEqual(['ENOSPC']);
      expect(store.storageFault?.error.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
      expect(() => store.append(1, 0, [rec('c', '3')])).toThrow(
        expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR }),
      );
      expect((await store.read(2, 0, ALL, 10)).records.map((r) => r.key.toString())).toContain('a');
      // Nothing resigned: the partitions stay led and served.
      expect(events).toEqual(['lead 0@0', 'lead 1@0', 'lead 2@0']);

      // Still failing: the retries on the clock do not heal it.
      for (let i = 0; i < 3; i++) {
        clock.advance(5_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(store.storageFault).toBeDefined();
      disk.restore();
      full = false;
      for (let i = 0; i < 20 && store.storageFault; i++) {
        clock.advance(5_000);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(store.storageFault).toBeUndefined();
      expect(healed).toHaveLength(1);
      // The write that failed was cut away, and the next one takes its offset.
      expect(store.offsets(2)).toEqual({ logStartOffset: 0, logEndOffset: 1, highWatermark: 1 });
      const next = store.append(2, 0, [rec('d', '4')]);
      expect(next.baseOffset).toBe(1);
      await store.awaitCommit(2, 0, next.lastOffset, 1_000);
      await store.close();
      const reopened = await open({ flushPolicy });
      expect((await reopened.read(2, 0, ALL, 10)).records.map((r) => r.key.toString())).toEqual(['a', 'd']);
    },
  );

  it('rejects bad input with a Kafka error code and appends nothing', async () => {
    const store = await open();
    expect(() => store.append(7, 0, [rec('a', '1')])).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.INVALID_REQUEST }),
    );
    expect(() => store.append(0, 0, [])).toThrow(expect.objectContaining({ errorCode: ErrorCode.INVALID_REQUEST }));
    expect(() => store.append(0, 3, [rec('a', '1')])).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.NOT_COORDINATOR }),
    );
    await expect(store.awaitCommit(0, 0, 5, 10)).rejects.toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
    expect(store.offsets(0).logEndOffset).toBe(0);
  });

  it('reads from an offset up to a limit, continuing across compaction gaps', async () => {
    const store = await open({ segmentBytes: 100 });
    let last = 0;
    for (let i = 0; i < 12; i++) last = store.append(0, 0, [rec(`k${i % 3}`, `v${i}`)]).lastOffset;
    await store.awaitCommit(0, 0, last, 1_000);
    expect((await store.read(0, 4, 7, 100)).records.map((r) => r.offset)).toEqual([4, 5, 6]);
    await store.compactAll();
    const seen: number[] = [];
    for (let next = 0; ;) {
      const page = await store.read(0, next, store.offsets(0).highWatermark, 2);
      if (page.records.length === 0) break;
      seen.push(...page.records.map((r) => r.offset));
      next = page.nextOffset;
    }
    expect(seen.length).toBeLessThan(12);
    expect(seen).toEqual([...seen].sort((a, b) => a - b));
    expect(seen.slice(-3)).toEqual([9, 10, 11]);
  });

  it('compacts a log whose store is reopened more often than the cleaner interval (a crash loop under load)', async () => {
    const sizeOnDisk = () => {
      const dir = path.join(dataDir, '__consumer_offsets-0');
      return readdirSync(dir)
        .filter((f) => f.endsWith('.log'))
        .reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
    };
    const sizes: number[] = [];
    for (let round = 0; round < 6; round++) {
      const store = await open({ segmentBytes: 2_000, cleaner: { checkIntervalMs: 15_000 } });
      let last = 0;
      for (let i = 0; i < 200; i++)
        last = store.append(0, store.leaderEpoch, [rec(`k${i % 5}`, `round-${round}-value-${i}`)]).lastOffset;
      await store.awaitCommit(0, store.leaderEpoch, last, 1_000);
      clock.advance(5_000); // each round lives a third of the cleaner's interval
      for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
      await store.close();
      stores.splice(stores.indexOf(store), 1);
      sizes.push(sizeOnDisk());
    }
    // 5 live keys: what the first pass of each start left (plus the active segment) stays bounded.
    expect(Math.max(...sizes.slice(2))).toBeLessThanOrEqual(2 * sizes[0]);
  });
});
