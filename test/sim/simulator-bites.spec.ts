import { runRandomSeed } from './random-run';
import { Scenario } from './scenario-kit';
import { stageStaleHwJoin } from './staging';

jest.setTimeout(60_000);

/**
 * The simulator is only worth its green runs if it goes red when a rule is broken. Each rule below is
 * broken deliberately by a variant of Kafka's rules from `broken-rules.ts` (never used outside the simulator) and
 * the default seeds must catch it; the seeds are the first ones of `npm run sim` that do.
 */
describe('the simulator catches broken replication rules', () => {
  it('HW as the largest follower LEO instead of the smallest: an acknowledged record is lost (seed 1)', async () => {
    const r = await runRandomSeed(1, { brokenRule: 'hw-formula' });
    expect(r.ok).toBe(false);
    expect(r.violations.join('\n')).toMatch(/\[(I12|G1)\]/);
  });

  it('truncating to the HW on becoming follower (pre-KIP-101): a new leader lacks a committed record (seed 3)', async () => {
    const r = await runRandomSeed(3, { brokenRule: 'truncate-to-hw' });
    expect(r.ok).toBe(false);
    expect(r.violations.join('\n')).toMatch(/\[(I12|G1)\]/);
  });

  it('ISR expansion without the epoch-start check: I18 fails (seed 28)', async () => {
    const r = await runRandomSeed(28, { brokenRule: 'isr-expand-without-epoch-start' });
    expect(r.ok).toBe(false);
    expect(r.violations.join('\n')).toMatch(/\[I18\]/);
  });

  it('ISR expansion without the epoch-start check, staged as KAFKA-7128: the early member is elected and r9 is lost', async () => {
    const s = await Scenario.start({
      nodes: 3,
      config: { replicaFetchMaxRecords: 1, logFlushPolicy: 'always' },
      brokenRule: 'isr-expand-without-epoch-start',
    });
    const { p, C, joinedEarly, release } = await stageStaleHwJoin(s);
    await s.until(() => joinedEarly(), 5_000, 'C joins the ISR below the epoch start');
    s.sim.crash(s.state(p).leader);
    release();
    await s.until(() => s.state(p).leader === C, 30_000, 'C elected');
    await s.sim.run(1_000);
    expect(s.checker.violations.join('\n')).toMatch(/\[I12\].*lacks committed @9=r9/);
  });
});
