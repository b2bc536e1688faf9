import { ReplicationErrorCode } from '@cohort/replication/testing';
import { Scenario, type Produced } from './scenario-kit';
import { STORE_NODE_ID } from './sim-store-link';

jest.setTimeout(60_000);

/** Scenarios S9–S13 (docs/guarantees.md): partitions, zombies, dirty reads and restarts of everything. */
describe('partitions, zombies and restarts', () => {
  describe('S9 Jepsen 2013', () => {
    it('a: with min ISR 1 and unclean election, acknowledged writes of an isolated sole leader are lost — and the checker sees it', async () => {
      const s = await Scenario.start(
        {
          nodes: 3,
          config: { minInsyncReplicas: 1, uncleanLeaderElectionEnable: true, eligibleLeaderReplicasEnable: false },
        },
        { expectDataLoss: true },
      );
      const [A, B, C] = [0, 1, 2];
      const p = s.partitionWithReplicas([A, B, C]);
      await s.produceAcked(A, p, 'before');
      s.sim.partitionNetwork([A], [B, C]);
      for (let i = 0; i < 3; i++) await s.produceAcked(A, p, `solo-${i}`);
      expect(s.state(p).isr.map((m) => m.nodeId)).toEqual([A]);
      const seen: string[] = [];
      s.everyStep(() => {
        const st = s.state(p);
        if (st.leader !== A && st.leader !== -1)
          seen.push(`${st.leader}:${st.leaderRecoveryState}:${st.isr.map((m) => m.nodeId)}`);
      });
      s.sim.network.partition([A], [STORE_NODE_ID]);
      await s.until(() => s.sim.leaderOf(p) !== undefined && s.sim.leaderOf(p)!.id !== A, 30_000, 'unclean election');
      expect(seen[0]).toBe(`${B}:RECOVERING:${B}`);
      await s.until(() => s.state(p).leaderRecoveryState === 'RECOVERED', 10_000, 'B recovered');
      expect(s.checker.violations.some((v) => v.includes('(expected)') && v.includes('solo-0'))).toBe(true);
      expect(s.checker.violations.filter((v) => !v.includes('(expected)'))).toEqual([]);
    });

    it('b: with the defaults, the isolated leader refuses acks=all writes, an ELR member takes over, nothing acknowledged is lost', async () => {
      const s = await Scenario.start({ nodes: 3 });
      const [A, B, C] = [0, 1, 2];
      const p = s.partitionWithReplicas([A, B, C]);
      await s.produceAcked(A, p, 'before');
      s.sim.partitionNetwork([A], [B, C]);
      const attempts: Produced[] = [];
      for (let i = 0; i < 20; i++) {
        attempts.push(s.produce(A, p, `solo-${i}`));
        await s.sim.run(500);
      }
      await s.until(() => attempts.every((a) => a.status !== 'pending'), 10_000, 'attempts settle');
      expect(attempts.filter((a) => a.status === 'NONE')).toEqual([]);
      expect(attempts.some((a) => a.status === 'NOT_ENOUGH_REPLICAS')).toBe(true);
      s.sim.network.partition([A], [STORE_NODE_ID]);
      // B and C left the ISR while it fell below the minimum, so they hold every committed record and
      // are eligible leader replicas (KIP-966): one of them takes over.
      await s.until(() => [B, C].includes(s.state(p).leader), 30_000, 'election from the ELR');
      s.sim.heal();
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'recovered');
      for (const id of [A, B, C]) expect(s.values(id, p)[0]).toBe('before');
      expect(await s.finish()).toEqual([]);
    });
  });

  it('S10 maximal ISR: while a shrink is pending or refused, the HW waits for the slow follower', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const controller = s.sim.upNodes().find((n) => n.isController)!.id;
    const A = (controller + 1) % 3;
    const B = (A + 1) % 3;
    const C = (A + 2) % 3;
    const p = s.partitionWithReplicas([A, B, C]);
    await s.produceAcked(A, p, 'r0');
    const cInStoreIsr = () => s.state(p).isr.some((m) => m.nodeId === C);
    let hwPassedC = false;
    s.everyStep(() => {
      const a = s.sim.replica(A, p);
      const c = s.sim.replica(C, p);
      if (a?.role === 'leader' && c && cInStoreIsr() && a.hw > c.log.logEndOffset) hwPassedC = true;
    });
    const unblockC = s.blockFetches(C, A);
    const shrinkProposals: string[] = [];
    s.intercept((m) => {
      if (m.kind !== 'alterPartition' || m.direction !== 'request' || m.from !== A) return undefined;
      const dropsC = !(m.body as { newIsr: Array<{ nodeId: number }> }).newIsr.some((x) => x.nodeId === C);
      if (!dropsC) return undefined;
      shrinkProposals.push('seen');
      if (shrinkProposals.length === 1)
        return { replaceWith: { errorCode: ReplicationErrorCode.OPERATION_NOT_ATTEMPTED } };
      if (shrinkProposals.length === 2) return { delayMs: 1_500 };
      return undefined;
    });
    const w = s.produce(A, p, 'w', -1, 'w', 20_000);
    await s.until(() => shrinkProposals.length >= 1, 10_000, 'first shrink proposal');
    await s.sim.run(10);
    expect(s.replica(A, p).isrState.kind).toBe('committed'); // refused: reverted
    expect(w.status).toBe('pending');
    await s.until(() => !cInStoreIsr(), 30_000, 'shrink committed');
    expect(shrinkProposals.length).toBe(2);
    await s.until(() => w.status !== 'pending', 5_000, 'w settles');
    expect(w.status).toBe('NONE');
    expect(hwPassedC).toBe(false);
    unblockC();
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'C back');
    expect(await s.finish()).toEqual([]);
  });

  it('S11 zombie leader: an isolated leader acknowledges nothing, is fenced, and drops its tail on rejoining', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const controller = s.sim.upNodes().find((n) => n.isController)!.id;
    const A = (controller + 1) % 3;
    const [B, C] = [(A + 1) % 3, (A + 2) % 3];
    const p = s.partitionWithReplicas([A, B, C]);
    await s.produceAcked(A, p, 'r0');
    const oldEpoch = s.state(p).leaderEpoch;
    s.sim.isolate(A);
    const zombieWrites: Produced[] = [];
    for (let i = 0; i < 10; i++) {
      zombieWrites.push(s.produce(A, p, `zombie-all-${i}`, -1));
      zombieWrites.push(s.produce(A, p, `zombie-one-${i}`, 1));
      await s.sim.run(400);
    }
    await s.until(() => s.state(p).leader !== A && s.state(p).leader !== -1, 30_000, 'new leader');
    const newEpoch = s.state(p).leaderEpoch;
    expect(newEpoch).toBe(oldEpoch + 1);
    await s.until(() => zombieWrites.every((z) => z.status !== 'pending'), 10_000, 'zombie writes settle');
    const ackedAll = zombieWrites.filter((z) => z.value.startsWith('zombie-all') && z.status === 'NONE');
    expect(ackedAll).toEqual([]);
    // A stale AlterPartition from the zombie's epoch, and a fetch in the new epoch sent to the zombie.
    const probe = s.sim.network.connect(99);
    const alter = await probeCall(
      s,
      probe.send(
        { nodeId: controller, endpoint: '' },
        'alterPartition',
        {
          nodeId: A,
          nodeEpoch: 0,
          partition: p,
          leaderEpoch: oldEpoch,
          partitionEpoch: 0,
          newIsr: [{ nodeId: A, nodeEpoch: 0 }],
          leaderRecoveryState: 'RECOVERED',
        },
        2_000,
      ),
    );
    expect(alter.errorCode).toBe(ReplicationErrorCode.FENCED_LEADER_EPOCH);
    const fetch = await probeCall(
      s,
      probe.send(
        { nodeId: A, endpoint: '' },
        'fetch',
        {
          replicaId: B,
          replicaEpoch: 0,
          maxWaitMs: 0,
          partitions: [
            {
              partition: p,
              currentLeaderEpoch: newEpoch,
              fetchOffset: 0,
              lastFetchedEpoch: -1,
              logStartOffset: 0,
              maxRecords: 10,
            },
          ],
        },
        2_000,
      ),
    );
    expect(fetch.partitions[0].errorCode).toBe(ReplicationErrorCode.UNKNOWN_LEADER_EPOCH);
    const tail = s.replica(A, p).log.logEndOffset;
    expect(tail).toBeGreaterThan(1); // the zombie appended in its old epoch
    s.sim.heal();
    await s.produceAcked(s.state(p).leader, p, 'after');
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'A rejoined');
    expect(s.values(A, p)).toEqual(['r0', 'after']);
    expect(s.truncations().some((t) => t.nodeId === A && t.toOffset === 1)).toBe(true);
    expect(await s.finish()).toEqual([]);
  });

  it('S12 dirty-read guard: a consumer never sees a record above the HW, and its offset later holds another value', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const [A, B, C] = [0, 1, 2];
    const p = s.partitionWithReplicas([A, B, C]);
    await s.produceAcked(A, p, 'r0');
    const unblock = [s.blockFetches(B, A), s.blockFetches(C, A)];
    const w = s.produce(A, p, 'w', 1);
    await s.sim.run(5);
    expect(w.status).toBe('NONE');
    const observed = new Map<number, string>();
    const poll = async () => {
      const node = s.sim.leaderOf(p);
      if (!node) return;
      const { highWatermark } = node.replicas.offsets(p);
      const read = await node.replicas.read(p, 0, highWatermark, 100);
      for (const r of read.records) {
        const v = r.value!.toString();
        if (observed.has(r.offset) && observed.get(r.offset) !== v)
          throw new Error(`offset ${r.offset} seen as ${observed.get(r.offset)} and ${v}`);
        observed.set(r.offset, v);
      }
    };
    await poll();
    s.sim.crash(A);
    unblock.forEach((u) => u());
    await s.until(
      () => s.sim.leaderOf(p) !== undefined && s.sim.leaderOf(p)!.replicas.partition(p)!.isLoadable(),
      30_000,
      'new leader',
    );
    await s.produceAcked(s.state(p).leader, p, 'v');
    await poll();
    await s.sim.restart(A);
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'A rejoined');
    await poll();
    expect([...observed.values()]).not.toContain('w');
    expect(observed.get(w.offset!)).toBe('v');
    for (const id of [A, B, C]) expect(s.values(id, p)).toEqual(['r0', 'v']);
    expect(await s.finish()).toEqual([]);
  });

  it('S13 stale HW checkpoint: after kill -9 of every node nothing acknowledged is truncated, and LATEST waits for the epoch start', async () => {
    const s = await Scenario.start({
      nodes: 3,
      config: { highWatermarkCheckpointIntervalMs: 60_000, logFlushPolicy: 'always' },
    });
    const p = 0;
    for (let i = 0; i < 20; i++) await s.produceAcked(s.state(p).leader, p, `r${i}`);
    for (const id of [0, 1, 2]) s.sim.crash(id);
    const latest: Array<number | string> = [];
    s.everyStep(() => {
      const leader = s.sim.leaderOf(p)?.replicas.partition(p);
      if (leader) latest.push(leader.latestCommittedOffset());
    });
    for (const id of [0, 1, 2]) await s.sim.restart(id);
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'all back');
    expect(latest[0]).toBe('OFFSET_NOT_AVAILABLE');
    expect(latest[latest.length - 1]).toBe(20);
    expect(latest.filter((x) => typeof x === 'number').every((x) => x === 20)).toBe(true);
    expect(s.truncations().filter((t) => t.toOffset < 20)).toEqual([]);
    for (const id of [0, 1, 2]) expect(s.values(id, p)).toHaveLength(20);
    expect(await s.finish()).toEqual([]);
  });
});

/** Runs the simulation until a probe request settles. */
async function probeCall<T>(s: Scenario, call: Promise<T>): Promise<T> {
  let result: { ok: true; value: T } | { ok: false; error: unknown } | undefined;
  call.then(
    (value) => (result = { ok: true, value }),
    (error: unknown) => (result = { ok: false, error }),
  );
  await s.until(() => result !== undefined, 5_000, 'probe answer');
  if (!result!.ok) throw result!.error;
  return result!.value;
}
