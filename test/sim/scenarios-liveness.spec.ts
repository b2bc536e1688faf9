import type { AlterPartitionRequest } from '@cohort/replication/testing';
import { Scenario } from './scenario-kit';
import { longestStall, steadyWrites } from './steady-writes';

jest.setTimeout(60_000);

/** Non-controller nodes a (dead-follower, surviving-leader) pair can be picked from, and a partition of theirs. */
function pick(s: Scenario): { A: number; C: number; p: number } {
  const controller = s.sim.upNodes().find((n) => n.isController)!.id;
  const others = s.sim.nodeIds.filter((id) => id !== controller);
  const [A, C] = others;
  const p = [...s.sim.statesNow().values()].find((st) => st.leader === A && st.replicas.includes(C))!.partition;
  return { A, C, p };
}

/** Liveness under faults that safety alone does not cover: dead followers and leadership balance. */
describe('liveness: dead followers and preferred leaders', () => {
  describe('S21 a follower whose process dies', () => {
    it('a: leaves the ISR as soon as its connections close, so commits on surviving leaders stall < 500 ms', async () => {
      const s = await Scenario.start({ nodes: 3 });
      const { A, C, p } = pick(s);
      const load = steadyWrites(s, A, p);
      await s.sim.run(500);
      const crashAt = s.sim.clock.now();
      s.sim.crash(C);
      await s.sim.run(1_500);
      load.stop();
      await s.until(() => load.writes.every((w) => w.status !== 'pending'), 20_000, 'writes settle');
      expect(load.writes.every((w) => w.status === 'NONE')).toBe(true);
      // What a client of a surviving coordinator notices.
      const stall = longestStall(load.writes, crashAt);
      expect(stall).toBeLessThan(500);
      expect(s.state(p).isr.map((m) => m.nodeId)).not.toContain(C);
      await s.sim.restart(C);
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'C back in every ISR');
      s.checker.final();
      expect(s.checker.acked.length).toBeGreaterThan(0);
      expect(s.checker.violations).toEqual([]);
    });

    it('b: never takes the ISR below MIN_INSYNC_REPLICAS: with ISR {A, C} and C dead, A proposes nothing smaller', async () => {
      const s = await Scenario.start({ nodes: 3 });
      const { A, C, p } = pick(s);
      const B = s.sim.nodeIds.find((id) => id !== A && id !== C)!;
      const proposals: number[][] = [];
      s.intercept((m) => {
        if (m.kind === 'alterPartition' && m.direction === 'request' && m.from === A) {
          const r = m.body as AlterPartitionRequest;
          if (r.partition === p) proposals.push(r.newIsr.map((x) => x.nodeId));
        }
        return undefined;
      });
      await s.produceAcked(A, p, 'before');
      const unblock = s.blockFetches(B, A);
      await s.produceAcked(A, p, 'B-misses-this'); // a follower at the LEO stays in sync; B must fall behind
      await s.until(() => !s.state(p).isr.some((m) => m.nodeId === B), 10_000, 'B leaves the ISR by lag');
      proposals.length = 0;
      s.sim.crash(C);
      await s.sim.run(1_000);
      // Within the node session timeout only the controller's fencing may take C out.
      expect(proposals.filter((isr) => isr.length < 2)).toEqual([]);
      expect(
        s
          .state(p)
          .isr.map((m) => m.nodeId)
          .sort(),
      ).toEqual([A, C].sort());
      const refused = s.produce(A, p, 'while-alone');
      await s.until(() => refused.status !== 'pending', 30_000, 'the lone write settles');
      expect(refused.status).not.toBe('NONE');
      unblock();
      await s.sim.restart(C);
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'healed');
      s.checker.final();
      expect(s.checker.violations).toEqual([]);
    });

    it('c: a cut network closes nothing: an isolated follower leaves only after REPLICA_LAG_TIME_MAX_MS', async () => {
      const s = await Scenario.start({ nodes: 3 });
      const { A, C, p } = pick(s);
      await s.produceAcked(A, p, 'before');
      const cutAt = s.sim.clock.now();
      s.sim.isolate(C);
      s.produce(A, p, 'C-misses-this');
      let removedAt: number | undefined;
      s.everyStep(() => (removedAt ??= s.state(p).isr.some((m) => m.nodeId === C) ? undefined : s.sim.clock.now()));
      await s.until(() => removedAt !== undefined, 20_000, 'C leaves the ISR');
      // Its last fetch (caught up) came at most one long-poll before the cut.
      expect(removedAt! - cutAt).toBeGreaterThanOrEqual(
        s.sim.config.replicaLagTimeMaxMs - s.sim.config.replicaFetchWaitMaxMs,
      );
      s.sim.heal();
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'healed');
      s.checker.final();
      expect(s.checker.violations).toEqual([]);
    });
  });

  describe('S22 preferred-leader election (auto leader rebalance)', () => {
    it('a: a restarted node that caught up leads its preferred partitions again, in a new leader epoch, losing nothing', async () => {
      const s = await Scenario.start({ nodes: 3, config: { leaderImbalanceCheckIntervalMs: 2_000 } });
      const controller = s.sim.upNodes().find((n) => n.isController)!.id;
      const C = s.sim.nodeIds.find((id) => id !== controller)!;
      const p = [...s.sim.statesNow().values()].find((st) => st.replicas[0] === C)!.partition;
      for (let i = 0; i < 5; i++) await s.produceAcked(C, p, `c${i}`);
      const epochBefore = s.state(p).leaderEpoch;
      s.sim.crash(C);
      await s.until(() => s.state(p).leader !== C && s.sim.leaderOf(p) !== undefined, 20_000, 'failover');
      const interim = s.state(p).leader;
      for (let i = 0; i < 5; i++) await s.produceAcked(interim, p, `i${i}`);
      await s.sim.restart(C);
      await s.until(() => s.state(p).leader === C && s.sim.leaderOf(p)?.id === C, 30_000, 'C leads again');
      expect(s.state(p).leaderEpoch).toBeGreaterThan(epochBefore + 1);
      // The interim leader stops serving the epoch it led in once it hears of the new one.
      await s.until(() => s.replica(interim, p).role === 'follower', 5_000, 'the interim leader follows');
      for (let i = 0; i < 5; i++) await s.produceAcked(C, p, `after${i}`);
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'settled');
      s.checker.final();
      expect(s.checker.violations).toEqual([]);
    });

    it('b: below LEADER_IMBALANCE_PER_BROKER_PERCENTAGE nothing moves; with AUTO_LEADER_REBALANCE_ENABLE=false neither', async () => {
      for (const config of [{ leaderImbalancePerBrokerPercentage: 100 }, { autoLeaderRebalanceEnable: false }]) {
        const s = await Scenario.start({ nodes: 3, config: { leaderImbalanceCheckIntervalMs: 2_000, ...config } });
        const controller = s.sim.upNodes().find((n) => n.isController)!.id;
        const C = s.sim.nodeIds.find((id) => id !== controller)!;
        const p = [...s.sim.statesNow().values()].find((st) => st.replicas[0] === C)!.partition;
        s.sim.crash(C);
        await s.until(() => s.state(p).leader !== C && s.sim.leaderOf(p) !== undefined, 20_000, 'failover');
        await s.sim.restart(C);
        await s.until(() => s.sim.fullyReplicated(), 30_000, 'C back in the ISR');
        await s.sim.run(6_000);
        expect(s.state(p).leader).not.toBe(C);
        s.checker.final();
        expect(s.checker.violations).toEqual([]);
      }
    });
  });
});
