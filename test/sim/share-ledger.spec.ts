import { ShareLedger } from './coordinator/share-ledger';

/** The share ledger goes red on each KIP-932 rule it guards (the simulator's share runs rely on it). */
describe('the share ledger of the simulator', () => {
  let now = 0;
  const ledger = () => new ShareLedger(() => now, 1_000, 3, 5);
  beforeEach(() => (now = 0));
  /** An acquire sent to `coordinator` and answered, as the workload reports each one. */
  const answeredAcquire = (l: ShareLedger, coordinator: number) => {
    l.acquireSent(coordinator);
    l.acquireAnswered(true);
  };

  it('an offset leased to a second member while the first surely holds it, by the same coordinator', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 5, 1);
    now = 500;
    l.leased('b', 1, 500, 'jobs-0', 5, 5, 2);
    expect(l.violations).toEqual(['jobs-0@5 leased to b while a held it until 500 ms from now']);
  });

  it('is quiet once the coordinator that granted the lease fenced the holder (it learns only at its next heartbeat)', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 1);
    // Another coordinator (a later leader epoch) does not have it: the first one still does.
    l.memberGone('a', 2);
    l.leased('b', 1, 100, 'jobs-0', 5, 5, 2);
    l.memberGone('a', 1);
    l.leased('c', 1, 100, 'jobs-0', 6, 6, 2);
    expect(l.violations).toEqual(['jobs-0@5 leased to b while a held it until 1000 ms from now']);
  });

  it('is quiet when the lock ran out, the holder let go, or a new coordinator (which frees every lease) leased it', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 1);
    now = 1_000;
    l.leased('b', 1, 1_000, 'jobs-0', 5, 5, 2);
    l.letGo('b', 'jobs-0', 5, 5, 1);
    l.leased('c', 1, 1_000, 'jobs-0', 5, 5, 3);
    l.leased('d', 2, 1_000, 'jobs-0', 5, 5, 4);
    expect(l.violations).toEqual([]);
  });

  it('an acknowledged offset leased again, and a delivery count that does not grow', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 5, 1);
    l.acknowledged('a', 'jobs-0', 5, 5, 1, 1, l.letGo('a', 'jobs-0', 5, 5, 1));
    l.leased('b', 2, 0, 'jobs-0', 5, 5, 1);
    expect(l.violations).toEqual([
      'jobs-0@5 leased to b after a acknowledged it',
      'jobs-0@5 leased with delivery count 1 after 1',
    ]);
  });

  it('a late ACCEPT (lock over, or another coordinator answers) does not count: it may have been skipped below SPSO', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 1);
    now = 900;
    l.acknowledged('a', 'jobs-0', 5, 5, 1, 1, l.letGo('a', 'jobs-0', 5, 5, 1));
    now = 0;
    l.leased('a', 1, 0, 'jobs-0', 6, 6, 2);
    l.acknowledged('a', 'jobs-0', 6, 6, 1, 2, l.letGo('a', 'jobs-0', 6, 6, 1));
    // Another member's lease rejected them, and an operator redelivered the dead letters.
    l.leased('b', 1, 2_000, 'jobs-0', 5, 6, 3);
    expect(l.violations).toEqual([]);
    expect(l.stats.lateAccepts).toBe(2);
  });

  it('an ACCEPT refused for the whole batch does not vouch for a later ACCEPT of the same offset, sent after its lock ran out', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 4);
    // The lease of 5-6 ran out; 5 and 6 were leased to a again, on their last delivery.
    now = 1_000;
    l.leased('a', 1, 1_000, 'jobs-0', 5, 5, 5);
    l.leased('a', 1, 1_000, 'jobs-0', 6, 6, 5);
    l.acknowledged('a', 'jobs-0', 6, 6, 2, 1, l.letGo('a', 'jobs-0', 6, 6, 1));
    // The first lease's late ACCEPT of 5-6, while 5 is surely held: refused (6 is a dead letter now).
    now = 1_100;
    l.letGo('a', 'jobs-0', 5, 6, 1);
    // The second lease's ACCEPT of 5 after its lock ran out (5 went to the archive): answered NONE, skipped.
    now = 2_100;
    l.acknowledged('a', 'jobs-0', 5, 5, 1, 1, l.letGo('a', 'jobs-0', 5, 5, 1));
    l.redeliverySent('jobs-0', 0, 10);
    l.leased('b', 1, 2_100, 'jobs-0', 5, 6, 1);
    expect(l.violations).toEqual([]);
    expect(l.stats.lateAccepts).toBe(1);
  });

  it('a redelivered dead letter counts from one again; any other offset may not', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 2);
    const letGo = l.letGo('a', 'jobs-0', 5, 6, 1);
    l.rejecting('jobs-0', 5, 5);
    l.acknowledged('a', 'jobs-0', 5, 5, 3, 1, letGo);
    l.acknowledged('a', 'jobs-0', 6, 6, 2, 1, letGo);
    l.redeliverySent('jobs-0', 0, 10);
    l.leased('b', 1, 0, 'jobs-0', 5, 6, 1);
    expect(l.violations).toEqual(['jobs-0@6 leased with delivery count 1 after 2']);
  });

  it('an offset an unanswered acquire may have leased on its last delivery may come back as a redelivered dead letter', () => {
    const l = ledger();
    answeredAcquire(l, 1);
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 4);
    l.acknowledged('a', 'jobs-0', 5, 6, 2, 1, l.letGo('a', 'jobs-0', 5, 6, 1));
    // b's acquire leased 5 on its last delivery, but the answer never came (its coordinator was cut off
    // after its write reached the follower that took over); the lock ran out and 5 went to the archive.
    l.acquireSent(1);
    l.redeliverySent('jobs-0', 0, 10);
    l.leased('c', 2, 0, 'jobs-0', 5, 5, 1);
    expect(l.violations).toEqual([]);
    // Far from its last delivery now, 5 is no dead letter however many acquires went unanswered.
    l.acknowledged('c', 'jobs-0', 5, 5, 2, 2, l.letGo('c', 'jobs-0', 5, 5, 2));
    l.redeliverySent('jobs-0', 0, 10);
    l.leased('d', 2, 0, 'jobs-0', 5, 5, 1);
    expect(l.violations).toEqual(['jobs-0@5 leased with delivery count 1 after 1']);
  });

  it('more offsets held at once than the in-flight window', () => {
    const l = ledger();
    l.leased('a', 1, 0, 'jobs-0', 0, 3, 1);
    expect(l.violations).toEqual(['jobs-0: 4 offsets held at once, beyond the window of 3']);
  });
  it('a group deleted and created again: what it acknowledged may come back counted from one, but not with the old counts, and only when the deletion surely happened', () => {
    const l = ledger();
    answeredAcquire(l, 1);
    l.leased('a', 1, 0, 'jobs-0', 5, 6, 1);
    const letGo = l.letGo('a', 'jobs-0', 5, 6, 1);
    l.acknowledged('a', 'jobs-0', 5, 6, 1, 1, letGo);
    now = 100;
    l.groupDeleted(100, true);
    now = 200;
    answeredAcquire(l, 1);
    l.leased('b', 1, 200, 'jobs-0', 5, 5, 1);
    answeredAcquire(l, 1);
    // The old group's count carried over into the new one.
    l.leased('b', 1, 200, 'jobs-0', 6, 6, 3);
    const kept = ledger();
    kept.leased('a', 1, 0, 'jobs-0', 5, 5, 1);
    kept.acknowledged('a', 'jobs-0', 5, 5, 1, 1, kept.letGo('a', 'jobs-0', 5, 5, 1));
    // No deletion was noted (a refused one is not): the acknowledgement stands.
    kept.leased('b', 1, 200, 'jobs-0', 5, 5, 2);
    expect([...l.violations, ...kept.violations]).toEqual([
      'jobs-0@6 leased with delivery count 3 as the first lease of the group created again (at most 0 unseen leases before)',
      'jobs-0@5 leased to b after a acknowledged it',
    ]);
  });

  it('a group created again and served by another coordinator since: one more for its delivery horizon, no more', () => {
    const l = ledger();
    now = 100;
    l.groupDeleted(100, true);
    now = 200;
    answeredAcquire(l, 1);
    l.leased('a', 1, 200, 'jobs-0', 0, 0, 1);
    // Coordinator 2 loaded what 1 wrote: 1-2, never leased, were under its horizon, counted once.
    now = 300;
    answeredAcquire(l, 2);
    l.leased('a', 2, 300, 'jobs-0', 1, 1, 2);
    answeredAcquire(l, 2);
    l.leased('a', 2, 300, 'jobs-0', 2, 2, 3);
    // Coordinator 1 alone before the deletion does not count: served only before the group's new life.
    const alone = ledger();
    answeredAcquire(alone, 1);
    now = 400;
    alone.groupDeleted(400, true);
    answeredAcquire(alone, 2);
    alone.leased('a', 2, 400, 'jobs-0', 1, 1, 2);
    expect([...l.violations, ...alone.violations]).toEqual([
      'jobs-0@2 leased with delivery count 3 as the first lease of the group created again (at most 0 unseen leases before, and one counted by a delivery horizon)',
      'jobs-0@1 leased with delivery count 2 as the first lease of the group created again (at most 0 unseen leases before)',
    ]);
  });
});
