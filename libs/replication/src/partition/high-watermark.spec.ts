import { computeLeaderHighWatermark, type HighWatermarkInputs } from './high-watermark';
import { newRemoteReplica, type RemoteReplicaState } from './remote-replica';

function remote(nodeId: number, leo: number, lastCaughtUpTimeMs = 0): RemoteReplicaState {
  return { ...newRemoteReplica(nodeId), leo, lastCaughtUpTimeMs, nodeEpoch: 1 };
}

function inputs(over: Partial<HighWatermarkInputs>): HighWatermarkInputs {
  return {
    currentHw: 0,
    leaderLogEndOffset: 10,
    leaderLogEndOffsetForLag: 10,
    committedIsrSize: 3,
    effectiveMinIsr: 2,
    maximalIsr: new Set([0, 1, 2]),
    remotes: [remote(1, 8), remote(2, 6)],
    nowMs: 100_000,
    replicaLagTimeMaxMs: 10_000,
    isIsrEligible: () => true,
    ...over,
  };
}

describe('computeLeaderHighWatermark', () => {
  it('is the minimum LEO over the leader and the maximal ISR', () => {
    expect(computeLeaderHighWatermark(inputs({}))).toBe(6);
  });

  it('never goes down (I9)', () => {
    expect(computeLeaderHighWatermark(inputs({ currentHw: 7 }))).toBe(7);
  });

  it('does not move while the committed ISR is below the minimum, even if the maximal ISR is larger (I10)', () => {
    expect(computeLeaderHighWatermark(inputs({ committedIsrSize: 1, currentHw: 2 }))).toBe(2);
  });

  it('waits for a caught-up, eligible replica outside the ISR, so the HW cannot run away from a joiner', () => {
    const joiner = remote(3, 4, 99_000);
    expect(computeLeaderHighWatermark(inputs({ maximalIsr: new Set([0, 1]), remotes: [remote(1, 8), joiner] }))).toBe(
      4,
    );
  });

  it('ignores a lagging non-member and an ineligible one (KAFKA-15021: a shutting-down replica does not stall it)', () => {
    const lagging = remote(3, 1, 50_000);
    const leaving = remote(4, 2, 99_000);
    const hw = computeLeaderHighWatermark(
      inputs({
        maximalIsr: new Set([0, 1]),
        remotes: [remote(1, 8), lagging, leaving],
        isIsrEligible: (r) => r.nodeId !== 4,
      }),
    );
    expect(hw).toBe(8);
  });

  it('counts a pending expansion at once: the maximal ISR includes the member being added', () => {
    expect(
      computeLeaderHighWatermark(inputs({ maximalIsr: new Set([0, 1, 2]), remotes: [remote(1, 8), remote(2, 3, 0)] })),
    ).toBe(3);
  });
});
