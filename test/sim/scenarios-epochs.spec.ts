import { preloadReplica } from './preload';
import { Scenario, fetchOffset } from './scenario-kit';
import { SimCluster } from './sim-cluster';

/**
 * Scenarios S1–S4 (docs/guarantees.md): truncation is decided by leader epochs (KIP-101, KIP-279, KAFKA-7415), never
 * by the HW. Each test also runs the global invariant checker after every simulated step.
 */
jest.setTimeout(60_000);

describe('leader epochs decide truncation', () => {
  it('S1 KIP-101 #1: a follower restarted with a stale HW keeps the acknowledged record and leads with it', async () => {
    // RF 2 {A=0, B=1}, min ISR 1; LOG_FLUSH_POLICY=always so A's restart vouches for its data and
    // the controller keeps it in the ISR (the harness condition of the scenario).
    const s = await Scenario.start({
      nodes: 2,
      config: { numPartitions: 2, replicationFactor: 2, minInsyncReplicas: 1, logFlushPolicy: 'always' },
    });
    const [A, B] = [0, 1];
    const p = s.partitionWithReplicas([B, A]);
    await s.produceAcked(B, p, 'm1');
    await s.until(() => s.replica(A, p).hw === 1, 5_000, 'A learns HW 1');
    // A's fetch at offset 2 lets B commit m2; its answer (carrying the new HW) is lost.
    s.intercept((m) =>
      m.kind === 'fetch' && m.from === B && m.to === A && m.direction === 'response' && fetchOffset(m.request, p) === 2
        ? 'drop'
        : undefined,
    );
    await s.produceAcked(B, p, 'm2');
    expect(s.replica(A, p).hw).toBe(1);
    // A's death reaches B silently (a cut link announces no closed connection), so B cannot shrink A out
    // of the ISR in the few milliseconds before B dies too: the stale HW matters only to an ISR member.
    s.sim.network.cutLink(A, B);
    s.sim.crash(A);
    const unblockA = s.blockFetches(A, B);
    await s.sim.restart(A);
    await s.until(() => s.sim.replica(A, p)?.role === 'follower', 10_000, 'A follows again');
    s.sim.crash(B);
    await s.until(() => s.sim.leaderOf(p)?.id === A, 30_000, 'A elected');
    s.sim.network.healBetween([A], [B]);
    unblockA();
    await s.sim.restart(B);
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'B caught up');
    expect(s.values(A, p)).toEqual(['m1', 'm2']);
    expect(s.values(B, p)).toEqual(['m1', 'm2']);
    expect(s.truncations().filter((t) => t.nodeId === A)).toEqual([]);
    expect(await s.finish()).toEqual([]);
  });

  describe('S2 KIP-101 #2: replicas that both lost power converge by epochs', () => {
    async function stage(logFlushPolicy: 'always' | 'replicated') {
      // RF 2 on {A=0, B=1}; node 2 only keeps the controller alive. No background flush.
      const s = await Scenario.start(
        {
          nodes: 3,
          config: {
            numPartitions: 3,
            replicationFactor: 2,
            minInsyncReplicas: 1,
            eligibleLeaderReplicasEnable: false,
            logFlushPolicy,
            highWatermarkCheckpointIntervalMs: 600_000,
          },
        },
        { expectDataLoss: true },
      );
      const [A, B] = [0, 1];
      const p = s.partitionWithReplicas([A, B]);
      await s.produceAcked(A, p, 'm1');
      await s.until(() => s.replica(B, p).hw === 1, 5_000, 'B has m1 committed');
      await s.flush(A, p);
      await s.flush(B, p);
      await s.produceAcked(A, p, 'm2');
      await s.flush(A, p);
      s.sim.crash(A, { powerLoss: true });
      await s.until(() => s.state(p).leader === B, 30_000, 'B elected while A is fenced');
      s.sim.crash(B, { powerLoss: true });
      await s.sim.restart(B);
      await s.until(() => s.sim.leaderOf(p)?.id === B && s.replica(B, p).isLoadable(), 30_000, 'B leads again');
      await s.produceAcked(B, p, 'm3');
      await s.sim.restart(A);
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'A caught up');
      return { s, A, B, p };
    }

    it('without fsync: m2 is lost on both (beyond the fault model) and A truncates to 1 by the diverging epoch', async () => {
      const { s, A, B, p } = await stage('replicated');
      expect(s.values(A, p)).toEqual(['m1', 'm3']);
      expect(s.values(B, p)).toEqual(['m1', 'm3']);
      expect(
        s.truncations().some((t) => t.nodeId === A && t.toOffset === 1 && t.reason.startsWith('diverging epoch 0')),
      ).toBe(true);
      // The checker notices the loss of the acknowledged m2 — as an expected finding for this staging.
      expect(s.checker.violations.length).toBeGreaterThan(0);
      expect(s.checker.violations.every((v) => v.includes('(expected)') || v.includes('m2'))).toBe(true);
    });

    it('with LOG_FLUSH_POLICY=always: m2 survives', async () => {
      const { s, A, B, p } = await stage('always');
      expect(s.values(B, p)).toEqual(['m1', 'm2', 'm3']);
      expect(s.values(A, p)).toEqual(['m1', 'm2', 'm3']);
      expect(await s.finish()).toEqual([]);
    });
  });

  it('S3 KIP-279: a follower with epochs the leader never saw converges in two iterations', async () => {
    // The caches of KIP-279's fast fail-over divergence, as three fast unclean elections leave them: leader A=0 holds
    // {(e0,0),(e2,3),(e4,8)}, follower C=1 holds {(e0,0),(e3,5)}, both with LEO 9.
    const s = new Scenario(
      new SimCluster({
        seed: 3,
        nodes: 2,
        config: {
          numPartitions: 1,
          replicationFactor: 2,
          minInsyncReplicas: 1,
          uncleanLeaderElectionEnable: true,
          logFlushPolicy: 'always',
        },
      }),
    );
    const [A, C] = [0, 1];
    await preloadReplica(s.sim, A, 0, [
      [0, 0, 3],
      [2, 3, 5],
      [4, 8, 1],
    ]);
    await preloadReplica(s.sim, C, 0, [
      [0, 0, 5],
      [3, 5, 4],
    ]);
    await s.sim.presetPartition({
      partition: 0,
      replicas: [A, C],
      leader: A,
      leaderEpoch: 4,
      isr: [A],
      recovering: false,
    });
    await s.sim.start();
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'C converged');
    const cTruncations = s.truncations().filter((t) => t.nodeId === C);
    expect(cTruncations.map((t) => t.toOffset)).toEqual([5, 3]);
    expect(s.values(C, 0)).toEqual(s.values(A, 0));
    expect(s.values(C, 0).slice(0, 4)).toEqual(['e0@0', 'e0@1', 'e0@2', 'e2@3']);
    expect(await s.finish()).toEqual([]);
    // C now has A's epochs for every record it holds (A's own empty re-election epoch is A's alone).
    expect(s.replica(C, 0).epochCache.list()).toEqual([
      { epoch: 0, startOffset: 0 },
      { epoch: 2, startOffset: 3 },
      { epoch: 4, startOffset: 8 },
    ]);
  });

  it('S4 KAFKA-7415: a new leader records its epoch before appending, so a follower with an uncommitted record truncates it', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const [C, B, A] = [0, 1, 2];
    const p = s.partitionWithReplicas([B, A, C]);
    for (let i = 0; i < 5; i++) await s.produceAcked(B, p, `r${i}`);
    await s.until(
      () => s.replica(A, p).log.logEndOffset === 5 && s.replica(C, p).log.logEndOffset === 5,
      5_000,
      'replicated',
    );
    const unblock = s.blockFetches(A, B); // A stays in the ISR but lags
    const x = s.produce(B, p, 'x');
    await s.until(() => s.replica(C, p).log.logEndOffset === 6, 2_000, 'C fetched x');
    s.sim.crash(B);
    unblock();
    let cacheAtElection: string | undefined;
    await s.until(
      () => {
        const a = s.sim.replica(A, p);
        if (a?.role === 'leader' && cacheAtElection === undefined)
          cacheAtElection = JSON.stringify({ latest: a.epochCache.latestEntry(), leo: a.log.logEndOffset });
        return a?.role === 'leader';
      },
      30_000,
      'A elected',
    );
    const epoch = s.replica(A, p).leaderEpoch;
    expect(JSON.parse(cacheAtElection!)).toEqual({ latest: { epoch, startOffset: 5 }, leo: 5 });
    await s.until(
      () => s.replica(C, p).log.logEndOffset === 5 || s.truncations().some((t) => t.nodeId === C),
      10_000,
      'C truncates x',
    );
    expect(s.truncations().find((t) => t.nodeId === C)).toMatchObject({ toOffset: 5 });
    await s.until(() => x.status !== 'pending', 10_000, 'x settles');
    expect(x.status).not.toBe('NONE');
    await s.sim.restart(B);
    await s.produceAcked(A, p, 'y');
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'converged');
    for (const id of [A, B, C]) expect(s.values(id, p)).toEqual(['r0', 'r1', 'r2', 'r3', 'r4', 'y']);
    expect(await s.finish()).toEqual([]);
  });
});
