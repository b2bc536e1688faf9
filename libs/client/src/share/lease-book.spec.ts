import { LeaseBook, toWire } from './lease-book';
import { AckType } from './share-wire';

describe('LeaseBook (what a share member holds and has acknowledged)', () => {
  const lease = (book: LeaseBook, first: number, last: number, at = 0) =>
    book.add('t', 0, { firstOffset: first, lastOffset: last, deliveryCount: 1 }, at, 3000);

  it('sends acknowledgements per partition in ascending runs, merging adjacent runs of one type', () => {
    expect(
      toWire([
        { topic: 't', partition: 1, firstOffset: 5, lastOffset: 6, type: AckType.accept, flushBy: 0 },
        { topic: 't', partition: 0, firstOffset: 3, lastOffset: 4, type: AckType.accept, flushBy: 0 },
        { topic: 't', partition: 0, firstOffset: 0, lastOffset: 2, type: AckType.accept, flushBy: 0 },
        { topic: 't', partition: 0, firstOffset: 5, lastOffset: 5, type: AckType.reject, flushBy: 0 },
      ]),
    ).toEqual([
      {
        topic: 't',
        partition: 0,
        batches: [
          { firstOffset: 0, lastOffset: 4, acknowledgeTypes: [1] },
          { firstOffset: 5, lastOffset: 5, acknowledgeTypes: [3] },
        ],
      },
      { topic: 't', partition: 1, batches: [{ firstOffset: 5, lastOffset: 6, acknowledgeTypes: [1] }] },
    ]);
  });

  it('acknowledges a range across two adjacent leases, but refuses one that runs past what is held, changing nothing', () => {
    const book = new LeaseBook();
    lease(book, 0, 4);
    lease(book, 5, 9);
    expect(() => book.acknowledge('t', 0, 3, 10, AckType.accept)).toThrow(/not held/);
    expect(book.heldOffsets).toBe(10);
    book.acknowledge('t', 0, 3, 6, AckType.accept);
    expect(book.heldOffsets).toBe(6);
    expect(book.takePending().acks[0].batches).toEqual([{ firstOffset: 3, lastOffset: 6, acknowledgeTypes: [1] }]);
  });

  it('a lost lease is reported as what was still unacknowledged of it', () => {
    const book = new LeaseBook();
    const whole = lease(book, 0, 4);
    book.acknowledge('t', 0, 1, 2, AckType.accept);
    expect(book.expire(2999)).toEqual([]);
    expect(book.expire(3000)).toEqual([
      { ...whole, firstOffset: 0, lastOffset: 0 },
      { ...whole, firstOffset: 3, lastOffset: 4 },
    ]);
    expect(book.isHeld(whole)).toBe(false);
  });

  it('renews only held offsets, moves the lock from the send time, and is due again two thirds into the new lock', () => {
    const book = new LeaseBook();
    const held = lease(book, 0, 3);
    book.acknowledge('t', 0, 1, 1, AckType.release);
    book.takePending();
    expect(book.nextDue()).toBe(2000);
    expect(book.takeRenewals(1999).leases).toEqual([]);
    const renewals = book.takeRenewals(2000);
    expect(renewals.acks[0].batches).toEqual([
      { firstOffset: 0, lastOffset: 0, acknowledgeTypes: [4] },
      { firstOffset: 2, lastOffset: 3, acknowledgeTypes: [4] },
    ]);
    expect(book.nextDue()).toBe(3000); // out: the lock's end is what counts now
    book.renewed(held, 2100, 3000);
    expect(held.lockExpiresAt).toBe(5100);
    expect(book.nextDue()).toBe(4100);
  });
});
