import { runCoordinatorSeed } from './coordinator/coordinator-run';

jest.setTimeout(240_000);

/**
 * KIP-848 consumer groups beside the classic ones on replicated __consumer_offsets, while partition
 * leaders are killed and members pause past their session, leave, die and join: the ownership, epoch and
 * offset invariants of `coordinator/ownership-ledger.ts` hold after every step (fixed seeds, so a failure
 * replays with `npm run sim -- --seed S --consumer --duration 15000 --verbose`; the
 * CLI runs fresh ones: `npm run sim -- --consumer --fresh --seeds 200`).
 */
describe('consumer groups (KIP-848) on replicated __consumer_offsets', () => {
  // Fresh seeds that failed once, each for a bug of the simulated client (fixed): 977653697, a member
  // whose answer was lost did not send a full request afterwards, so it never learned the partitions the
  // coordinator had given it; 1623418607, a reconciliation went on after its member left. (Seed 1, below
  // with a share group, first showed a target arriving during a fenced membership's slow revocation
  // that was never reconciled.) Later changes to the code move every seed's schedule, so these now run
  // other histories; they stay as fixed seeds.
  it.each([977653697, 1623418607])(
    'seed %i: no partition is worked by two live members, epochs never go back, acknowledged commits survive failover',
    async (seed) => {
      const r = await runCoordinatorSeed(seed, { faultPhaseMs: 15_000, consumerGroups: 3 });
      expect(r.violations).toEqual([]);
      const consumer = r.consumer!;
      const stats = consumer.ownership.stats;
      // The run did what it claims: leaders died, members were fenced while their partitions moved on
      // (zombies whose commits were refused), heartbeats and describes were checked.
      expect(r.leaderKills).toBeGreaterThan(0);
      expect(stats.fences).toBeGreaterThan(0);
      expect(stats.overlaps).toBeGreaterThan(0);
      expect(stats.acknowledgedHeartbeats).toBeGreaterThan(100);
      expect(stats.described).toBeGreaterThan(50);
      expect(consumer.verifiedAnswers).toBeGreaterThan(50);
    },
  );

  it('seed 2 with one parked heartbeat reconciled a turn: every batch spans turns, with the faults between, and the same invariants hold', async () => {
    // A coordinator reconciles 200 parked heartbeats a turn; the simulated groups, of 2–4 members, then
    // never see a batch answered over several turns, nor a fault between its turns.
    const r = await runCoordinatorSeed(2, { faultPhaseMs: 15_000, consumerGroups: 3, partsPerTurn: 1 });
    expect(r.violations).toEqual([]);
    const stats = r.consumer!.ownership.stats;
    expect(r.leaderKills + r.leaderIsolations).toBeGreaterThan(0);
    expect(stats.fences).toBeGreaterThan(0);
    expect(stats.acknowledgedHeartbeats).toBeGreaterThan(100);
  });

  it('seed 1 with a share group besides: an offset leased to one member at a time, nothing acknowledged leased again, delivery counts only grow, the in-flight window holds, SPSO never moves back outside a new state epoch', async () => {
    const r = await runCoordinatorSeed(1, { faultPhaseMs: 15_000, consumerGroups: 3, shareGroup: true });
    expect(r.violations).toEqual([]);
    const share = r.share!;
    const stats = share.ledger.stats;
    expect(stats.accepted).toBeGreaterThan(100);
    // Leases ran out or were released and their offsets were delivered again.
    expect(stats.redeliveries).toBeGreaterThan(10);
    // SPSO was checked on the committed log and the leading coordinator, through redeliveries of dead
    // letters below it (each a new state epoch).
    expect(share.starts.stats.committedStates).toBeGreaterThan(100);
    expect(share.starts.stats.servedReads).toBeGreaterThan(1_000);
    expect(share.redeliveries.offsets).toBeGreaterThan(0);
    expect(share.starts.stats.epochRises).toBeGreaterThan(0);
  });

  // Fresh share seeds that failed once, each for a bug of the simulator (fixed): 1382613999 and
  // 1146562757, a worker whose session ran out while its heartbeat waited on a commit was fenced and its
  // leases given to others, which the share ledger took for two members holding an offset at once;
  // 329980343, a REJECT whose answer was lost in a crash had committed, and the operator's redelivery of
  // that dead letter (counted from one again) looked like a delivery count going down; the same seed then
  // hung in the final ConsumerGroupDescribe, which waits for earlier writes to commit while nothing drove
  // the simulated clock (the run now keeps the clock going until the final reads are answered, and the CLI
  // reports a run that stops awaiting instead of exiting 0). 1699878845 found a coordinator bug (fixed):
  // dead letters redelivered inside the window kept their state epoch, so after a reload the replay's
  // merge took their older ARCHIVED record over the ACCEPT that followed and redelivered them again.
  it.each([1382613999, 1146562757, 329980343, 1699878845])(
    'share seed %i: the share invariants and SPSO hold through fenced workers and failovers',
    async (seed) => {
      const r = await runCoordinatorSeed(seed, { faultPhaseMs: 15_000, consumerGroups: 3, shareGroup: true });
      expect(r.violations).toEqual([]);
      expect(r.share!.ledger.stats.accepted).toBeGreaterThan(100);
      expect(r.share!.starts.stats.epochRises).toBeGreaterThan(0);
    },
  );

  // Fresh seeds that found a coordinator bug (fixed): 673848811 and 671200635, a node that fell behind
  // on __consumer_offsets and caught up from a leader that had compacted it kept its own old epoch-4
  // assignments but not the records that later moved those partitions; elected, its load refused the
  // members' newer assignments as giving away partitions still owned, and served them at their old epochs.
  // Since answers may be held (a joiner waiting for partitions), 673848811 cuts its leaders off the
  // network three times instead of killing them; either way another replica is elected and loads.
  it.each([673848811, 671200635])(
    'consumer and share seed %i: a new leader loads every member at its latest assignment from a compacted log',
    async (seed) => {
      const r = await runCoordinatorSeed(seed, { faultPhaseMs: 15_000, consumerGroups: 3, shareGroup: true });
      expect(r.violations).toEqual([]);
      expect(r.leaderKills + r.leaderIsolations).toBeGreaterThan(0);
      expect(r.consumer!.ownership.stats.acknowledgedHeartbeats).toBeGreaterThan(100);
    },
  );

  // Fresh seed 505889320 failed only in its batch's process (`--fresh` runs seeds one after another in one
  // process): where an acquire starts among a member's partitions was one count shared by every shard of
  // the process, so each run began where the runs before it had left it, and the seed passed when
  // replayed alone. Its failure was the share ledger's (fixed): a late ACCEPT refused for its whole batch
  // left its offset noted as surely held, so the same member's next ACCEPT of it, sent after its lock
  // ran out on the last delivery (archived, then redelivered by the operator), counted as acknowledged.
  it('a share seed plays the same history after other runs in the same process as alone (seed 505889320)', async () => {
    const options = { faultPhaseMs: 5_000, consumerGroups: 3, shareGroup: true };
    const first = await runCoordinatorSeed(505889320, options);
    await runCoordinatorSeed(3, { faultPhaseMs: 3_000, shareGroup: true });
    const again = await runCoordinatorSeed(505889320, options);
    expect(first.violations).toEqual([]);
    expect(again.steps).toBe(first.steps);
    expect(again.trace).toEqual(first.trace);
  });

  // Fresh seed 1673021332 (the default 40 s of faults) failed for the share ledger (fixed): an acquire of
  // a worker went unanswered (its coordinator was cut off after the lease's write reached the follower
  // that took over), so the offset it leased on its last delivery went to the archive unseen, and the
  // operator's redelivery of it (counted from one again) looked like a delivery count going down.
  it('share seed 1673021332: an offset leased unseen on its last delivery may come back as a redelivered dead letter', async () => {
    const r = await runCoordinatorSeed(1673021332, { consumerGroups: 3, shareGroup: true });
    expect(r.violations).toEqual([]);
    expect(r.share!.ledger.stats.accepted).toBeGreaterThan(100);
  });

  // Fresh seeds 2065312478 and 548313727 (10 s of faults), the first with an operator deleting the share
  // group and its workers creating it again, found a coordinator bug (fixed): DeleteGroups wrote the
  // group's tombstones first and its share partitions' state tombstones only once those committed, so
  // the log held a deleted group with its state (a new leader would hand that state to the group created
  // again), and the group created again was served a fresh SPSO behind the old one still committed.
  // The group's and its state's tombstones are now one write, the partitions gone when it is applied.
  it('share seed 2065312478: a share group deleted and created again is a fresh group, and its old state goes in the same write', async () => {
    const r = await runCoordinatorSeed(2065312478, { faultPhaseMs: 10_000, consumerGroups: 3, shareGroup: true });
    expect(r.violations).toEqual([]);
    expect(r.share!.deletions.deleted).toBeGreaterThan(0);
    expect(r.share!.ledger.stats.accepted).toBeGreaterThan(100);
  });

  // Fresh seed 1002096288 found a share-partition bug (fixed): once an operator's redelivery of dead
  // letters moved SPSO back behind offsets still leased, an acquire leased the redelivered offsets and
  // released ones past the new window as well, 45 offsets in flight at once in a window of 40. An acquire
  // now leases nothing past SPSO + GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS and never more than that many in flight.
  it('share seed 1002096288: no more offsets in flight than the window after a redelivery moved SPSO back', async () => {
    const r = await runCoordinatorSeed(1002096288, { consumerGroups: 3, shareGroup: true });
    expect(r.violations).toEqual([]);
    expect(r.share!.redeliveries.offsets).toBeGreaterThan(0);
    expect(r.share!.ledger.stats.accepted).toBeGreaterThan(100);
  });

  it('catches a redelivery of dead letters that brings SPSO back without a new state epoch (seed 1)', async () => {
    const r = await runCoordinatorSeed(1, {
      faultPhaseMs: 5_000,
      shareGroup: true,
      brokenShare: 'redeliver-without-new-state-epoch',
    });
    const violations = r.violations.join('\n');
    expect(violations).toMatch(
      /SPSO moved back from \d+ \(committed @\d+:\d+\) to \d+ \(committed @\d+:\d+\) in state epoch 0/,
    );
    expect(violations).toMatch(/SPSO moved back from \d+ \(served by node \d+ in leader epoch \d+\) to \d+/);
  });

  it('catches a lease that leaves before the log counts it, as Kafka leases (seed 3)', async () => {
    const r = await runCoordinatorSeed(3, {
      faultPhaseMs: 10_000,
      shareGroup: true,
      brokenShare: 'lease-without-horizon',
    });
    expect(r.violations.join('\n')).toMatch(/jobs-\d@\d+ leased with delivery count 1 after 1/);
    // The same seed with the delivery horizon: leases under it leave without a write, no count goes down.
    const kept = await runCoordinatorSeed(3, { faultPhaseMs: 10_000, shareGroup: true });
    expect(kept.violations).toEqual([]);
  });

  it('catches a member that acknowledges its new assignment before it finished revoking (seed 3)', async () => {
    const r = await runCoordinatorSeed(3, {
      faultPhaseMs: 5_000,
      consumerGroups: 3,
      brokenMember: 'acknowledge-before-revoking',
    });
    expect(r.violations.join('\n')).toMatch(/believes it owns \S+ but the coordinator has it at epoch \d+ without it/);
  });
});
