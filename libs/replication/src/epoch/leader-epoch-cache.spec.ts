import { InMemoryCheckpointStorage } from '../storage/in-memory-checkpoint-storage';
import { parseEpochCheckpoint } from './epoch-checkpoint-format';
import { LeaderEpochCache } from './leader-epoch-cache';

function cache(entries: Array<[number, number]> = []): { c: LeaderEpochCache; storage: InMemoryCheckpointStorage } {
  const storage = new InMemoryCheckpointStorage();
  const c = new LeaderEpochCache(storage, 'p0/leader-epoch-checkpoint');
  for (const [epoch, start] of entries) c.assign(epoch, start);
  return { c, storage };
}

describe('LeaderEpochCache', () => {
  it('assign keeps epochs and start offsets strictly increasing, dropping tail entries a new epoch supersedes', () => {
    const { c } = cache([
      [0, 0],
      [2, 3],
      [4, 8],
    ]);
    c.assign(4, 9); // same epoch, later start: no-op
    expect(c.list()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
      { epoch: 4, startOffset: 8 },
    ]);
    c.assign(3, 5); // an older epoch arriving later removes every entry with epoch >= 3 or start >= 5
    expect(c.list()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
      { epoch: 3, startOffset: 5 },
    ]);
  });

  it('truncateFromEnd removes entries starting at or after the offset, even an entry with no records (I3)', () => {
    const { c } = cache([
      [0, 0],
      [1, 5],
      [2, 5 + 0],
    ]);
    expect(c.list()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 5 },
    ]);
    c.truncateFromEnd(5);
    expect(c.list()).toEqual([{ epoch: 0, startOffset: 0 }]);
  });

  it('endOffsetFor answers the largest epoch <= requested and where it ends', () => {
    const { c } = cache([
      [0, 0],
      [2, 3],
      [4, 8],
    ]);
    expect(c.endOffsetFor(4, 9)).toEqual({ epoch: 4, endOffset: 9 }); // latest: the LEO
    expect(c.endOffsetFor(3, 9)).toEqual({ epoch: 2, endOffset: 8 }); // unknown epoch: floor and next start
    expect(c.endOffsetFor(0, 9)).toEqual({ epoch: 0, endOffset: 3 });
    expect(c.endOffsetFor(5, 9)).toEqual({ epoch: -1, endOffset: -1 }); // newer than anything known
    expect(c.endOffsetFor(-1, 9)).toEqual({ epoch: -1, endOffset: -1 });
    const { c: late } = cache([[3, 10]]);
    expect(late.endOffsetFor(1, 12)).toEqual({ epoch: 1, endOffset: 10 }); // older than the first entry
  });

  it("writes through to a checkpoint in Kafka's format and reads it back on restart", () => {
    const { c, storage } = cache([
      [0, 0],
      [5, 42],
    ]);
    expect(storage.read('p0/leader-epoch-checkpoint')).toBe('0\n2\n0 0\n5 42\n');
    const reopened = new LeaderEpochCache(storage, 'p0/leader-epoch-checkpoint');
    expect(reopened.list()).toEqual(c.list());
    expect(reopened.epochAt(41)).toBe(0);
    expect(reopened.epochAt(42)).toBe(5);
  });

  it('refuses a corrupt checkpoint instead of half-trusting it', () => {
    expect(() => parseEpochCheckpoint('0\n3\n0 0\n1 5\n')).toThrow(/expected 3 entries/);
    expect(() => parseEpochCheckpoint('1\n0\n')).toThrow(/unsupported version/);
    expect(() => parseEpochCheckpoint('0\n1\n0 x\n')).toThrow(/bad line/);
  });
});
