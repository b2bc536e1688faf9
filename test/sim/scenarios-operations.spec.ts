import type { StoredRecord } from '@cohort/replication';
import { Scenario, type Produced } from './scenario-kit';
import { STORE_NODE_ID } from './sim-store-link';
import { produce } from '@cohort/replication/testing';

jest.setTimeout(90_000);

/** Last-writer-wins replay of a compacted log (docs/guarantees.md I27): tombstone = delete. */
function replay(records: StoredRecord[]): Record<string, string> {
  const state: Record<string, string> = {};
  for (const r of records) {
    const k = r.key.toString();
    if (r.value === null) delete state[k];
    else state[k] = r.value.toString();
  }
  return state;
}

async function readCommitted(s: Scenario, nodeId: number, partition: number): Promise<StoredRecord[]> {
  const node = s.sim.node(nodeId)!;
  let result: StoredRecord[] | undefined;
  void node.replicas
    .read(partition, 0, node.replicas.offsets(partition).highWatermark, 10_000)
    .then((r) => (result = r.records));
  await s.until(() => result !== undefined, 1_000, 'read');
  return result!;
}

function snapshot(s: Scenario, nodeId: number, partition: number): Map<number, string> {
  const out = new Map<number, string>();
  const log = s.replica(nodeId, partition).log;
  for (const b of log.read(0, log.logEndOffset, Number.MAX_SAFE_INTEGER))
    for (const r of b.records) out.set(r.offset, `${r.leaderEpoch}:${r.key}=${r.value}`);
  return out;
}

/** Scenarios S14–S20 (docs/guarantees.md): the coordinator's gate, compaction, planned moves, churn, timing. */
describe('coordination, compaction and planned changes', () => {
  it('S14 KAFKA-20634: pending commits of a leader that lost its epoch fail with NOT_COORDINATOR, even after its HW passes their offsets', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const [A, B, C] = [0, 1, 2];
    const p = s.partitionWithReplicas([A, B, C]);
    const events: string[] = [];
    for (const id of [A, B]) {
      s.sim.node(id)!.replicas.subscribe({
        onBecomeLeader: (partition, epoch) =>
          partition === p && events.push(`${id} leads ${epoch} @${s.sim.clock.now()}`),
        onResign: (partition, epoch) => partition === p && events.push(`${id} resigns ${epoch} @${s.sim.clock.now()}`),
      });
    }
    const epoch = s.state(p).leaderEpoch;
    await s.produceAcked(A, p, 'committed');
    const unblock = [s.blockFetches(B, A), s.blockFetches(C, A)];
    const store = s.sim.node(A)!.replicas;
    const outcomes: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { lastOffset } = store.append(p, epoch, [
        { key: Buffer.from(`g${i}`), value: Buffer.from(`pending-${i}`), timestamp: s.sim.clock.now() },
      ]);
      store.awaitCommit(p, epoch, lastOffset, 30_000).then(
        () => outcomes.push('SUCCESS'),
        (e: { errorName?: string }) => outcomes.push(e.errorName ?? String(e)),
      );
    }
    await s.adminChange(p, (st) => ({ leader: B, leaderEpoch: st.leaderEpoch + 1 }));
    unblock.forEach((u) => u());
    await s.until(() => outcomes.length === 3, 10_000, 'pending commits settle');
    expect(outcomes).toEqual(['NOT_COORDINATOR', 'NOT_COORDINATOR', 'NOT_COORDINATOR']);
    for (let i = 0; i < 5; i++) await s.produceAcked(B, p, `b${i}`);
    await s.until(() => s.replica(A, p).hw >= 4, 10_000, "A's HW passes the old offsets");
    expect(outcomes).toEqual(['NOT_COORDINATOR', 'NOT_COORDINATOR', 'NOT_COORDINATOR']);
    expect(s.values(B, p)).not.toContain('pending-0');
    expect(s.values(A, p)).toEqual(s.values(B, p));
    const resign = events.find((e) => e.startsWith(`${A} resigns`))!;
    const takeover = events.find((e) => e.startsWith(`${B} leads`))!;
    expect(Number(resign.split('@')[1])).toBeLessThanOrEqual(Number(takeover.split('@')[1]));
    expect(await s.finish()).toEqual([]);
  });

  it('S15 compaction below the HW keeps offsets and epochs, replays to the same state, and never touches the uncommitted tail', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const [A, B, C] = [0, 1, 2];
    const p = s.partitionWithReplicas([A, B, C]);
    await s.produceAcked(A, p, 'v1', 'k');
    await s.produceAcked(A, p, 'v2', 'k');
    const node = s.sim.node(A)!;
    let tombstoneAcked = false;
    produce(node.replicas, p, [{ key: Buffer.from('k'), value: null, timestamp: s.sim.clock.now() }], -1, 5_000).then(
      () => (tombstoneAcked = true),
    );
    await s.until(() => tombstoneAcked, 5_000, 'tombstone acked');
    await s.produceAcked(A, p, 'v', 'j');
    await s.until(() => [B, C].every((id) => s.replica(id, p).hw === s.replica(A, p).hw), 5_000, 'HW everywhere');
    for (const id of [A, B, C]) await s.flush(id, p); // the cleaner only rewrites what is on disk
    const before = snapshot(s, A, p);
    for (const id of [A, B, C]) await runCompaction(s, id, p);
    const after = snapshot(s, A, p);
    expect(after.size).toBeLessThan(before.size);
    for (const [offset, rec] of after) expect(before.get(offset)).toBe(rec); // offsets and epochs unchanged
    expect(replay(await readCommitted(s, A, p))).toEqual({ j: 'v' });
    await s.sim.run(s.sim.config.deleteRetentionMs + 1_000);
    for (const id of [A, B, C]) await runCompaction(s, id, p);
    expect(replay(await readCommitted(s, A, p))).toEqual({ j: 'v' });
    expect([...snapshot(s, A, p).values()].some((r) => r.endsWith('=null'))).toBe(false); // tombstone gone after retention
    // An uncommitted tail is never compacted, and a leader change truncates it.
    const unblock = [s.blockFetches(B, A), s.blockFetches(C, A)];
    const u1 = s.produce(A, p, 'u1', 1, 'j');
    const u2 = s.produce(A, p, 'u2', 1, 'j');
    await s.sim.run(5);
    expect([u1.status, u2.status]).toEqual(['NONE', 'NONE']);
    const hw = s.replica(A, p).hw;
    const tailBefore = [...snapshot(s, A, p)].filter(([o]) => o >= hw);
    await runCompaction(s, A, p);
    expect([...snapshot(s, A, p)].filter(([o]) => o >= hw)).toEqual(tailBefore);
    s.sim.crash(A);
    unblock.forEach((u) => u());
    await s.until(
      () => s.sim.leaderOf(p) !== undefined && s.sim.leaderOf(p)!.replicas.partition(p)!.isLoadable(),
      30_000,
      'new leader',
    );
    await s.sim.restart(A);
    await s.produceAcked(s.state(p).leader, p, 'w', 'x');
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'converged');
    for (const id of [A, B, C]) expect(replay(await readCommitted(s, id, p))).toEqual({ j: 'v', x: 'w' });
    expect(await s.finish()).toEqual([]);
  });

  it('S16 controlled shutdown: in-flight writes end committed or NOT_LEADER_OR_FOLLOWER, and the new leader does not stall', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const p = 0;
    const A = s.state(p).leader;
    const writes: Array<Produced & { at: number }> = [];
    let stop = false;
    const tick = () => {
      if (stop) return;
      writes.push(Object.assign(s.produce(s.state(p).leader, p, `w${writes.length}`), { at: s.sim.clock.now() }));
      s.sim.clock.schedule(10, tick);
    };
    tick();
    await s.sim.run(500);
    const shutdownAt = s.sim.clock.now();
    await s.sim.controlledShutdown(A, 5_000);
    await s.sim.run(2_000);
    stop = true;
    await s.until(() => writes.every((w) => w.status !== 'pending'), 10_000, 'writes settle');
    const onA = writes.filter((w) => w.at <= shutdownAt);
    expect(onA.every((w) => w.status === 'NONE' || w.status === 'NOT_LEADER_OR_FOLLOWER')).toBe(true);
    const acked = writes.filter((w) => w.status === 'NONE').map((w) => w.at);
    const firstAfter = acked.find((t) => t > shutdownAt)!;
    expect(firstAfter - shutdownAt).toBeLessThan(s.sim.config.replicaLagTimeMaxMs / 2);
    expect(s.state(p).isr.some((m) => m.nodeId === A)).toBe(false);
    expect(await s.finish()).toEqual([]);
  });

  // Fresh seed 324436457 (I15): the simulator's clean stop dropped the unflushed tails of logs its process
  // had never opened, a power cut nobody had staged, while the machine (and its page cache) stayed up.
  it('S16b a node restarted off the store and stopped cleanly keeps the unflushed tail its crashed process left', async () => {
    const s = await Scenario.start({ nodes: 3, config: { logFlushPolicy: 'replicated' } });
    const p = 0;
    const A = s.state(p).leader;
    for (let i = 0; i < 5; i++) await s.produceAcked(A, p, `r${i}`);
    const log = s.sim.disks.get(A)!.logs.get(p)!;
    const leo = log.logEndOffset;
    expect(log.flushedOffset).toBeLessThan(leo); // the tail lives in the page cache only
    s.sim.crash(A);
    s.sim.network.partition([A], [STORE_NODE_ID]);
    s.sim.startNode(A); // never registers, so it opens (and flushes) no log
    await s.sim.controlledShutdown(A, 1_000);
    expect(log.logEndOffset).toBe(leo);
    expect(await s.finish()).toEqual([]);
  });

  it('S17 fast leader churn: 50 rounds of produce, bounce a follower, bounce the leader lose nothing', async () => {
    const s = await Scenario.start({ nodes: 3, config: { logFlushPolicy: 'always' } });
    const p = 0;
    for (let round = 0; round < 50; round++) {
      await s.until(
        () => s.sim.leaderOf(p)?.replicas.partition(p)?.isLoadable() === true,
        30_000,
        `leader in round ${round}`,
      );
      const leader = s.state(p).leader;
      const w = s.produce(leader, p, `r${round}`);
      const follower = s.state(p).replicas.find((id) => id !== leader)!;
      await s.until(() => w.status !== 'pending', 10_000, 'the write settles (acknowledged: a follower has it)');
      s.sim.crash(follower);
      await s.sim.restart(follower);
      s.sim.crash(leader);
      await s.sim.restart(leader);
    }
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'settled');
    s.checker.final();
    expect(s.checker.acked.length).toBeGreaterThan(0);
    expect(await s.finish()).toEqual([]);
  });

  describe('S18 ISR timing', () => {
    it('a: a follower that always trails by the latest tiny batch stays in the ISR', async () => {
      const s = await Scenario.start({ nodes: 3, network: { minDelayMs: 25, maxDelayMs: 25 } });
      const p = 0;
      const leader = s.state(p).leader;
      let shrunk = false;
      s.everyStep(() => (shrunk ||= s.state(p).isr.length < 3));
      for (let i = 0; i < 2_000; i++) {
        s.produce(leader, p, `t${i}`, 1);
        await s.sim.run(10);
      }
      expect(shrunk).toBe(false);
      expect(await s.finish()).toEqual([]);
    });

    it('b: a frozen follower leaves after lag.max to 1.5 × lag.max, then acks=all resumes', async () => {
      const s = await Scenario.start({ nodes: 3 });
      const p = 0;
      const leader = s.state(p).leader;
      const frozen = s.state(p).replicas.find((id) => id !== leader)!;
      const lag = s.sim.config.replicaLagTimeMaxMs;
      await s.produceAcked(leader, p, 'warm');
      s.blockFetches(frozen, leader);
      const frozenAt = s.sim.clock.now();
      const writes: Produced[] = [];
      let removedAt: number | undefined;
      s.everyStep(
        () => (removedAt ??= s.state(p).isr.some((m) => m.nodeId === frozen) ? undefined : s.sim.clock.now()),
      );
      while (removedAt === undefined && s.sim.clock.now() < frozenAt + 3 * lag) {
        writes.push(s.produce(leader, p, `x${writes.length}`, -1, `x${writes.length}`, 20_000));
        await s.sim.run(100);
      }
      expect(removedAt! - frozenAt).toBeGreaterThanOrEqual(lag);
      expect(removedAt! - frozenAt).toBeLessThanOrEqual(1.5 * lag + 200);
      await s.until(() => writes.every((w) => w.status !== 'pending'), 2_000, 'held writes complete');
      expect(writes.every((w) => w.status === 'NONE')).toBe(true);
      const after = s.produce(leader, p, 'after');
      await s.sim.run(200);
      expect(after.status).toBe('NONE');
      expect(await s.finish()).toEqual([]);
    });
  });

  it('S19 a follower that lost committed data in a power cut is not electable until it has caught up', async () => {
    const s = await Scenario.start({
      nodes: 3,
      config: { logFlushPolicy: 'replicated', highWatermarkCheckpointIntervalMs: 600_000 },
    });
    const [A, B, C] = [0, 1, 2];
    const p = s.partitionWithReplicas([A, B, C]);
    for (let i = 0; i < 10; i++) await s.produceAcked(A, p, `r${i}`);
    await s.until(() => s.replica(B, p).log.logEndOffset === 10, 5_000, 'B has everything');
    let bLedShort = false;
    s.everyStep(() => {
      const b = s.sim.replica(B, p);
      if (s.state(p).leader === B && b && b.log.logEndOffset < 10) bLedShort = true;
    });
    s.sim.crash(B, { powerLoss: true });
    expect(s.sim.disks.get(B)!.logs.get(p)!.logEndOffset).toBe(0);
    await s.sim.restart(B);
    s.sim.crash(A);
    await s.until(() => s.sim.leaderOf(p)?.replicas.partition(p)?.isLoadable() === true, 30_000, 'a leader');
    expect(s.state(p).leader).toBe(C);
    await s.sim.restart(A);
    await s.until(() => s.sim.fullyReplicated(), 30_000, 'converged');
    expect(bLedShort).toBe(false);
    for (const id of [A, B, C]) expect(s.values(id, p)).toHaveLength(10);
    expect(await s.finish()).toEqual([]);
  });

  it('S20 re-elected leader: an epoch bump without a leader change starts a new epoch at the LEO with no truncation and a continuous HW', async () => {
    const s = await Scenario.start({ nodes: 3 });
    const p = 0;
    const A = s.state(p).leader;
    const writes: Produced[] = [];
    let stop = false;
    const tick = () => {
      if (stop) return;
      writes.push(s.produce(A, p, `w${writes.length}`));
      s.sim.clock.schedule(10, tick);
    };
    tick();
    await s.sim.run(500);
    const oldEpoch = s.state(p).leaderEpoch;
    let leoAtBump: number | undefined;
    let hwDropped = false;
    let lastHw = 0;
    s.everyStep(() => {
      const a = s.sim.replica(A, p);
      if (!a) return;
      if (a.leaderEpoch === oldEpoch + 1 && leoAtBump === undefined) leoAtBump = a.leaderEpochStartOffset;
      if (a.hw < lastHw) hwDropped = true;
      lastHw = a.hw;
    });
    await s.adminChange(p, (st) => ({ leaderEpoch: st.leaderEpoch + 1 }));
    await s.sim.run(1_000);
    stop = true;
    await s.until(() => writes.every((w) => w.status !== 'pending'), 10_000, 'writes settle');
    expect(s.replica(A, p).epochCache.list()).toContainEqual({ epoch: oldEpoch + 1, startOffset: leoAtBump });
    expect(s.truncations()).toEqual([]);
    expect(hwDropped).toBe(false);
    expect(writes.every((w) => w.status === 'NONE' || w.status === 'NOT_LEADER_OR_FOLLOWER')).toBe(true);
    expect(writes.filter((w) => w.status === 'NONE').length).toBeGreaterThan(100);
    await s.until(() => s.sim.fullyReplicated(), 10_000, 'followers in the new epoch');
    expect(await s.finish()).toEqual([]);
  });
});

async function runCompaction(s: Scenario, nodeId: number, partition: number): Promise<void> {
  let done = false;
  void s.sim
    .node(nodeId)!
    .replicas.compactNow(partition)
    .finally(() => (done = true));
  await s.until(() => done, 1_000, `compaction on node ${nodeId}`);
}
