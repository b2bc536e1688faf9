import { GroupCommit } from './group-commit';

/** A sync the test ends by hand, with what the "file" held when it was issued. */
interface ManualSync {
  coversUpTo: number;
  succeed(): void;
  fail(error: Error): void;
}

/**
 * A file that holds `written` bytes and a GroupCommit over syncs the test ends by hand. A sync makes
 * durable what was written when it was issued, as fsync does: `durable` follows the syncs that succeeded.
 */
function setup(options: ConstructorParameters<typeof GroupCommit>[1] = {}) {
  const file = { written: 0, durable: 0 };
  const syncs: ManualSync[] = [];
  const commit = new GroupCommit(
    () =>
      new Promise<void>((resolve, reject) => {
        const coversUpTo = file.written;
        syncs.push({
          coversUpTo,
          succeed: () => {
            file.durable = Math.max(file.durable, coversUpTo);
            resolve();
          },
          fail: reject,
        });
      }),
    options,
  );
  /** Writes one byte and asks for it to be made durable: the flush's outcome, and where its byte is. */
  const writeAndFlush = () => {
    const end = ++file.written;
    const flush = { end, state: 'pending' as 'pending' | 'resolved' | 'rejected', durableWhenAnswered: -1 };
    commit.request().then(
      () => {
        flush.state = 'resolved';
        flush.durableWhenAnswered = file.durable;
      },
      () => (flush.state = 'rejected'),
    );
    return flush;
  };
  return { file, syncs, commit, writeAndFlush };
}

const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

describe('GroupCommit', () => {
  it('one sync at a time: a flush asked for while a sync runs waits for the next one, which covers it', async () => {
    const { syncs, writeAndFlush } = setup();
    const a = writeAndFlush();
    const b = writeAndFlush();
    expect(syncs).toHaveLength(1);
    const c = writeAndFlush();
    await settle();
    expect(syncs).toHaveLength(1);
    syncs[0].succeed();
    await settle();
    // The first sync began before b and c were written: neither is answered by it.
    expect([a.state, b.state, c.state]).toEqual(['resolved', 'pending', 'pending']);
    expect(syncs).toHaveLength(2);
    syncs[1].succeed();
    await settle();
    expect([b.state, c.state]).toEqual(['resolved', 'resolved']);
  });

  it('pipelined: a flush asked for while a sync runs starts its own sync at once, and only that one answers it', async () => {
    const { syncs, writeAndFlush } = setup({ maxInFlight: 2 });
    const a = writeAndFlush();
    const b = writeAndFlush();
    await settle();
    // The callers of one synchronous run share one sync.
    expect(syncs.map((s) => s.coversUpTo)).toEqual([2]);
    const c = writeAndFlush();
    await settle();
    expect(syncs.map((s) => s.coversUpTo)).toEqual([2, 3]);
    syncs[0].succeed();
    await settle();
    // c was written after the first sync was issued: that sync's end must not answer it.
    expect([a.state, b.state, c.state]).toEqual(['resolved', 'resolved', 'pending']);
    syncs[1].succeed();
    await settle();
    expect(c.state).toBe('resolved');
    // Every flush was answered only once what it wrote was durable.
    for (const flush of [a, b, c]) expect(flush.durableWhenAnswered).toBeGreaterThanOrEqual(flush.end);
  });

  it('answers the rounds in the order they started: a later sync that ends first waits for the earlier one', async () => {
    const { syncs, writeAndFlush } = setup({ maxInFlight: 2 });
    const a = writeAndFlush();
    await settle();
    const b = writeAndFlush();
    await settle();
    syncs[1].succeed();
    await settle();
    expect([a.state, b.state]).toEqual(['pending', 'pending']);
    syncs[0].succeed();
    await settle();
    expect([a.state, b.state]).toEqual(['resolved', 'resolved']);
  });

  it('a failed sync fails every round not answered yet, even one whose own sync succeeded', async () => {
    const { syncs, writeAndFlush } = setup({ maxInFlight: 2 });
    const a = writeAndFlush();
    await settle();
    const b = writeAndFlush();
    await settle();
    syncs[1].succeed();
    syncs[0].fail(new Error('EIO'));
    await settle();
    expect([a.state, b.state]).toEqual(['rejected', 'rejected']);
    // The next flush gets a sync of its own, started after the failure.
    const c = writeAndFlush();
    await settle();
    expect(syncs).toHaveLength(3);
    syncs[2].succeed();
    await settle();
    expect(c.state).toBe('resolved');
  });

  it('fails a round only once its own sync has ended, so its caller cannot close the file under that sync', async () => {
    const { syncs, writeAndFlush } = setup({ maxInFlight: 2 });
    const a = writeAndFlush();
    await settle();
    const b = writeAndFlush();
    await settle();
    syncs[0].fail(new Error('EIO'));
    await settle();
    expect([a.state, b.state]).toEqual(['rejected', 'pending']);
    syncs[1].succeed();
    await settle();
    expect(b.state).toBe('rejected');
  });

  it('keeps at most maxInFlight syncs running, and none beside one that must run alone', async () => {
    let alone = false;
    const { syncs, writeAndFlush } = setup({ maxInFlight: 2, canOverlap: () => !alone });
    const flushes = [writeAndFlush()];
    await settle();
    flushes.push(writeAndFlush());
    await settle();
    flushes.push(writeAndFlush());
    await settle();
    expect(syncs).toHaveLength(2);
    syncs[0].succeed();
    await settle();
    // A slot is free: the waiting flush starts its sync, covering the third write.
    expect(syncs.map((s) => s.coversUpTo)).toEqual([1, 2, 3]);
    alone = true;
    flushes.push(writeAndFlush());
    await settle();
    expect(syncs).toHaveLength(3);
    syncs[1].succeed();
    await settle();
    expect(syncs).toHaveLength(3);
    syncs[2].succeed();
    await settle();
    // Nothing else runs now: the round that must run alone starts.
    expect(syncs).toHaveLength(4);
    syncs[3].succeed();
    await settle();
    expect(flushes.map((f) => f.state)).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
    for (const flush of flushes) expect(flush.durableWhenAnswered).toBeGreaterThanOrEqual(flush.end);
  });
});
