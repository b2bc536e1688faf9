import type { NodeRegistration } from '../metadata/node-registration';
import type { PartitionState } from '../metadata/partition-state';
import { leaderImbalanceOf, preferredLeaderElections } from './leader-imbalance';
import type { LiveNodes } from './partition-change';

const live: LiveNodes = new Map(
  [0, 1, 2].map((nodeId) => [
    nodeId,
    { nodeId, nodeEpoch: 10 + nodeId, endpoint: '', shuttingDown: false, previousNodeEpoch: -1 } as NodeRegistration,
  ]),
);

/** Partition `p` with replicas rotated from `p % 3` and the given leader; every replica in the ISR. */
function state(p: number, leader: number): PartitionState {
  const replicas = [p % 3, (p + 1) % 3, (p + 2) % 3];
  return {
    partition: p,
    replicas,
    isr: replicas.map((nodeId) => ({ nodeId, nodeEpoch: 10 + nodeId })),
    elr: [],
    leader,
    leaderEpoch: 4,
    partitionEpoch: 9,
    leaderRecoveryState: 'RECOVERED',
  };
}

describe('preferred-leader rebalancing (auto.leader.rebalance.enable)', () => {
  // 30 partitions: each node is the preferred leader of 10.
  const balanced = Array.from({ length: 30 }, (_, p) => state(p, p % 3));

  it('elects nothing when every partition is led by its preferred replica', () => {
    expect(preferredLeaderElections(balanced, live, 10)).toEqual([]);
  });

  it('moves every partition of a node whose imbalance exceeds the percentage back to it, with a new leader epoch', () => {
    // Node 0 came back: its 10 preferred partitions are led by node 1.
    const states = balanced.map((s) => (s.replicas[0] === 0 ? { ...s, leader: 1 } : s));
    expect(leaderImbalanceOf(states, 0)).toEqual({ preferred: 10, notLed: 10 });
    const changes = preferredLeaderElections(states, live, 10);
    expect(changes.map((c) => c.partition)).toEqual(states.filter((s) => s.replicas[0] === 0).map((s) => s.partition));
    for (const c of changes) expect(c).toMatchObject({ leader: 0, leaderEpoch: 5, partitionEpoch: 10 });
  });

  it('leaves an imbalance at or below the percentage alone (Kafka: ratio > percentage / 100)', () => {
    const one = balanced.map((s) => (s.partition === 0 ? { ...s, leader: 1 } : s)); // 1 of 10 = 10 %
    expect(preferredLeaderElections(one, live, 10)).toEqual([]);
    const two = one.map((s) => (s.partition === 3 ? { ...s, leader: 2 } : s)); // 2 of 10 = 20 %
    expect(preferredLeaderElections(two, live, 10).map((c) => c.partition)).toEqual([0, 3]);
    expect(preferredLeaderElections(two, live, 0).map((c) => c.partition)).toEqual([0, 3]);
  });

  it('never elects a preferred replica that is out of the ISR or registered with another incarnation', () => {
    const states = balanced.map((s) =>
      s.replicas[0] === 0 ? { ...s, leader: 1, isr: s.isr.filter((m) => m.nodeId !== 0) } : s,
    );
    expect(preferredLeaderElections(states, live, 10)).toEqual([]);
    const restarted: LiveNodes = new Map([...live, [0, { ...live.get(0)!, nodeEpoch: 99 }]]);
    expect(
      preferredLeaderElections(
        balanced.map((s) => (s.replicas[0] === 0 ? { ...s, leader: 1 } : s)),
        restarted,
        10,
      ),
    ).toEqual([]);
  });
});
