import { ErrorCode, partitionFor } from '@cohort/protocol';
import { runCoordinatorSeed } from './coordinator/coordinator-run';
import { SimCoordinators } from './coordinator/sim-coordinators';
import { Scenario } from './scenario-kit';

jest.setTimeout(120_000);

/** docs/guarantees.md on replicated partitions: the group coordinator over ReplicaManagers in the simulation. */
describe('the group coordinator on replicated __consumer_offsets', () => {
  it.each([11, 12])(
    'keeps every acknowledged OffsetCommit and SyncGroup while partition leaders are killed (seed %i)',
    async (seed) => {
      const r = await runCoordinatorSeed(seed, { faultPhaseMs: 30_000 });
      expect(r.violations).toEqual([]);
      expect(r.leaderKills).toBeGreaterThan(5);
      expect(r.verifiedAnswers).toBeGreaterThan(100);
      expect(r.ledger.ackedCommits).toBeGreaterThan(1_000);
      // Clients did meet loading coordinators and moved coordinators along the way.
      expect(r.ledger.loadInProgressAnswers + r.ledger.notCoordinatorAnswers).toBeGreaterThan(0);
    },
  );

  it("KAFKA-20634: the old coordinator's pending OffsetCommit fails with NOT_COORDINATOR; the new one answers LOAD_IN_PROGRESS until replayed", async () => {
    const s = await Scenario.start({ nodes: 3, config: { numPartitions: 3 } });
    const coordinators = new SimCoordinators(s.sim);
    coordinators.sync();
    const groupId = 'payments';
    const p = partitionFor(groupId, 3);
    const A = s.state(p).leader;
    const B = s
      .state(p)
      .isr.map((m) => m.nodeId)
      .find((id) => id !== A)!;
    const C = s.state(p).replicas.find((id) => id !== A && id !== B)!;
    await s.until(() => coordinators.coordinator(A)!.isServing(p), 10_000, 'A serves');
    const commit = (node: number, offset: number) =>
      coordinators.call(
        node,
        (c) =>
          c.offsetCommit(
            {
              groupId,
              generationId: -1,
              topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: offset }] }],
            },
            { clientId: 'x', clientHost: 'sim' },
          ),
        30_000,
      );
    let first: Awaited<ReturnType<typeof commit>> | undefined;
    void commit(A, 1).then((r) => (first = r));
    await s.until(() => first !== undefined, 5_000, 'first commit');
    expect(first!.ok && first!.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.NONE);

    const unblock = [s.blockFetches(B, A), s.blockFetches(C, A)];
    let pending: Awaited<ReturnType<typeof commit>> | undefined;
    void commit(A, 2).then((r) => (pending = r));
    await s.sim.run(50);
    expect(pending).toBeUndefined(); // held until committed
    const answersFromB: number[] = [];
    s.everyStep(() => {
      if (!coordinators.coordinator(B)?.loadingPartitions().includes(p)) return;
      void coordinators
        .coordinator(B)!
        .offsetFetch({ groupId, topics: null })
        .then((r) => answersFromB.push(r.errorCode));
    });
    await s.adminChange(p, (st) => ({ leader: B, leaderEpoch: st.leaderEpoch + 1 }));
    unblock.forEach((u) => u());
    await s.until(() => pending !== undefined, 10_000, 'the pending commit settles');
    expect(pending!.ok && pending!.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    await s.until(() => coordinators.coordinator(B)!.isServing(p), 10_000, 'B serves');
    expect(answersFromB.length).toBeGreaterThan(0);
    expect(answersFromB.every((code) => code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS)).toBe(true);
    // A's HW later passes the offset its lost record had; it must still not count as committed.
    for (let i = 0; i < 3; i++) await s.produceAcked(B, p, `filler-${i}`);
    await s.until(() => s.sim.fullyReplicated(), 10_000, 'A caught up');
    let fetched: Awaited<ReturnType<SimCoordinators['call']>> | undefined;
    void coordinators
      .call(B, (c) => c.offsetFetch({ groupId, topics: [{ name: 'orders', partitionIndexes: [0] }] }), 5_000)
      .then((r) => (fetched = r));
    await s.until(() => fetched !== undefined, 5_000, 'offset fetch');
    const value = (
      fetched as { ok: true; value: { topics: Array<{ partitions: Array<{ committedOffset: number }> }> } }
    ).value;
    expect(value.topics[0].partitions[0].committedOffset).toBe(1);
    expect(s.checker.violations).toEqual([]);
  });
});
