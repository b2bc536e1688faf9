import { partitionState } from '@cohort/replication/testing';
import { isForked, repairForkedPartition } from './forked-partition-repair';

const m = (nodeId: number, nodeEpoch = nodeId) => ({ nodeId, nodeEpoch });

describe('repairing a partition whose write Redis lost', () => {
  const stored = partitionState(0, {
    replicas: [1, 2, 3],
    isr: [m(1), m(2), m(3)],
    leader: 1,
    leaderEpoch: 4,
    partitionEpoch: 7,
  });

  it('sees a fork when a node saw a newer state, or a different one of the same partition epoch', () => {
    expect(isForked(stored, stored)).toBe(false);
    expect(isForked(stored, { ...stored, partitionEpoch: 6 })).toBe(false);
    expect(isForked(stored, { ...stored, partitionEpoch: 8 })).toBe(true);
    expect(isForked(stored, { ...stored, leader: 2 })).toBe(true);
  });

  it('sees a fork in a newer state that cannot follow from the one a node saw', () => {
    // A later ISR change in the same leader epoch follows; a lower leader epoch, or another leader in the same one, cannot.
    expect(isForked(stored, { ...stored, isr: [m(1)], partitionEpoch: 5 })).toBe(false);
    expect(isForked(stored, { ...stored, leaderEpoch: 3, leader: 2, partitionEpoch: 5 })).toBe(false);
    expect(isForked(stored, { ...stored, leaderEpoch: 5, partitionEpoch: 5 })).toBe(true);
    expect(isForked(stored, { ...stored, leader: 2, partitionEpoch: 5 })).toBe(true);
  });

  it('moves past both copies in partition and leader epoch, keeping only members both ISRs agree on', () => {
    // The lost write had shrunk the ISR to {1, 2} and moved leadership to 2 in epoch 5.
    const seen = { ...stored, isr: [m(1), m(2)], leader: 2, leaderEpoch: 5, partitionEpoch: 8 };
    expect(repairForkedPartition(stored, seen)).toMatchObject({
      isr: [m(1), m(2)],
      leader: 1,
      leaderEpoch: 6,
      partitionEpoch: 9,
    });
    // Node 1 dropped on the seen side: the stored leader may lack what was committed there.
    const without1 = { ...seen, isr: [m(2), m(3)] };
    expect(repairForkedPartition(stored, without1)).toMatchObject({ isr: [m(2), m(3)], leader: 2 });
    // A restarted incarnation is not the member that was admitted.
    expect(repairForkedPartition(stored, { ...seen, isr: [m(1, 9)] })).toMatchObject({ isr: stored.isr, leader: -1 });
  });
});
