import { Scenario } from './scenario-kit';
import { longestStall, steadyWrites } from './steady-writes';

jest.setTimeout(60_000);

/**
 * S23 (issue #13): the follower that dies also holds the controller lease. The surviving leader proposes
 * dropping it from the ISR as soon as its connections close (S21), but only a controller can commit that,
 * so commits on the partition wait for a new controller. The leader sends its pending proposal to the new
 * controller the moment it learns of it (not after the request to the dead one times out and backs off),
 * so the stall is bounded by the controller lease, not by the node session timeout.
 */
describe('S23 the follower that dies is also the controller', () => {
  // A lease of a third of the session, as Kafka's controller quorum notices a dead leader well within a broker's session.
  const config = { nodeSessionTimeoutMs: 3_000, controllerLeaseMs: 1_000 };

  for (const crashAfterMs of [500, 850, 1_200]) {
    it(`commits resume within the controller lease, not the session (crash ${crashAfterMs} ms in)`, async () => {
      const s = await Scenario.start({ nodes: 3, config });
      const X = s.sim.upNodes().find((n) => n.isController)!.id;
      const p = [...s.sim.statesNow().values()].find(
        (st) => st.leader !== X && st.isr.some((m) => m.nodeId === X),
      )!.partition;
      const A = s.state(p).leader;
      const load = steadyWrites(s, A, p);
      await s.sim.run(crashAfterMs);
      const crashAt = s.sim.clock.now();
      s.sim.crash(X);
      await s.sim.run(4_000);
      load.stop();
      await s.until(() => load.writes.every((w) => w.status !== 'pending'), 20_000, 'writes settle');
      expect(load.writes.every((w) => w.status === 'NONE')).toBe(true);
      // Lease expiry, a third of a lease until a survivor's next attempt, and one round trip; the
      // session (3 s, when the controller would fence X) must not be what ends it.
      expect(longestStall(load.writes, crashAt)).toBeLessThan(config.nodeSessionTimeoutMs / 2);
      expect(s.state(p).isr.map((m) => m.nodeId)).not.toContain(X);
      await s.sim.restart(X);
      await s.until(() => s.sim.fullyReplicated(), 30_000, 'X back in every ISR');
      s.checker.final();
      expect(s.checker.violations).toEqual([]);
    });
  }
});
