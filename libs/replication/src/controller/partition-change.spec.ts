import type { NodeRegistration } from '../metadata/node-registration';
import type { PartitionState } from '../metadata/partition-state';
import {
  initialPartitionStates,
  preferredLeaderChange,
  reconcilePartition,
  recoverWith,
  uncleanRecoveryCandidates,
  type LiveNodes,
} from './partition-change';

const config = { minInsyncReplicas: 2, uncleanLeaderElectionEnable: false, eligibleLeaderReplicasEnable: false };

function nodes(...list: Array<[number, number, Partial<NodeRegistration>?]>): LiveNodes {
  return new Map(
    list.map(([nodeId, nodeEpoch, extra]) => [
      nodeId,
      { nodeId, nodeEpoch, endpoint: '', shuttingDown: false, previousNodeEpoch: -1, ...extra },
    ]),
  );
}

function state(over: Partial<PartitionState> = {}): PartitionState {
  return {
    partition: 0,
    replicas: [0, 1, 2],
    isr: [
      { nodeId: 0, nodeEpoch: 10 },
      { nodeId: 1, nodeEpoch: 11 },
      { nodeId: 2, nodeEpoch: 12 },
    ],
    elr: [],
    leader: 0,
    leaderEpoch: 5,
    partitionEpoch: 20,
    leaderRecoveryState: 'RECOVERED',
    ...over,
  };
}

describe('controller partition changes', () => {
  it('changes nothing while every member is live with the incarnation it was admitted with', () => {
    expect(reconcilePartition(state(), nodes([0, 10], [1, 11], [2, 12]), config)).toBeNull();
  });

  it('fences a lapsed leader: next ISR member in assignment order leads, leader and partition epochs bump', () => {
    const next = reconcilePartition(state(), nodes([1, 11], [2, 12]), config)!;
    expect(next).toMatchObject({ leader: 1, leaderEpoch: 6, partitionEpoch: 21 });
    expect(next.isr.map((m) => m.nodeId)).toEqual([1, 2]);
  });

  it('KIP-903/966: a follower restarted without vouching for its data leaves the ISR; one that vouches stays', () => {
    const unclean = reconcilePartition(state(), nodes([0, 10], [1, 21], [2, 12]), config)!;
    expect(unclean.isr.map((m) => m.nodeId)).toEqual([0, 2]);
    expect(unclean.leaderEpoch).toBe(5); // ISR changes alone never bump the leader epoch
    const clean = reconcilePartition(state(), nodes([0, 10], [1, 21, { previousNodeEpoch: 11 }], [2, 12]), config)!;
    expect(clean.isr).toContainEqual({ nodeId: 1, nodeEpoch: 21 });
  });

  it('a restarted leader is re-elected in a new epoch even when it vouches for its data', () => {
    const next = reconcilePartition(state(), nodes([0, 30, { previousNodeEpoch: 10 }], [1, 11], [2, 12]), config)!;
    expect(next).toMatchObject({ leader: 0, leaderEpoch: 6 });
  });

  it('without ELR the ISR is never emptied: when every member is gone, one stays and the partition waits for it', () => {
    const next = reconcilePartition(state(), nodes(), config)!;
    expect(next.leader).toBe(-1);
    expect(next.isr).toEqual([{ nodeId: 0, nodeEpoch: 10 }]);
  });

  it('a restarted member is not dropped while the others are gone: any of them may be the one that lost its tail', () => {
    const next = reconcilePartition(state(), nodes([0, 99]), config)!; // 0 restarted uncleanly, 1 and 2 fenced
    expect(next.leader).toBe(-1);
    expect(next.isr).toEqual(state().isr);
  });

  it('KIP-966 unclean recovery: when every member restarted uncleanly, nobody leads until their logs are compared', () => {
    const all = nodes([0, 30], [1, 31], [2, 32]); // all three restarted without vouching for their data
    const offline = reconcilePartition(state(), all, config)!;
    expect(offline).toMatchObject({ leader: -1, leaderEpoch: 6 });
    expect(offline.isr).toEqual(state().isr); // the members are kept: they are the only candidates
    expect(uncleanRecoveryCandidates(offline, all)).toEqual([0, 1, 2]);
    // While one member is still away, the restarted ones are kept (it may be them who hold everything).
    const waiting = reconcilePartition(state(), nodes([0, 30], [1, 31]), config)!;
    expect(waiting.isr).toEqual(state().isr);
    expect(uncleanRecoveryCandidates(waiting, nodes([0, 30], [1, 31]))).toBeNull();
    const recovered = recoverWith(offline, all, [
      { nodeId: 0, logEndOffset: 90, lastEpoch: 5 }, // lost its tail in a power cut
      { nodeId: 1, logEndOffset: 120, lastEpoch: 5 },
      { nodeId: 2, logEndOffset: 120, lastEpoch: 5 },
    ])!;
    expect(recovered).toMatchObject({ leader: 1, isr: [{ nodeId: 1, nodeEpoch: 31 }], leaderEpoch: 7 });
  });

  it('with ELR, members that leave while the ISR is below the minimum become eligible leaders and one is elected later', () => {
    const elrConfig = { ...config, eligibleLeaderReplicasEnable: true };
    const shrunk = reconcilePartition(
      state({
        isr: [
          { nodeId: 0, nodeEpoch: 10 },
          { nodeId: 1, nodeEpoch: 11 },
        ],
      }),
      nodes([2, 12]),
      elrConfig,
    )!;
    expect(shrunk).toMatchObject({ leader: -1, isr: [] });
    expect(shrunk.elr.map((m) => m.nodeId)).toEqual([0, 1]);
    const back = reconcilePartition(shrunk, nodes([1, 11], [2, 12]), elrConfig)!;
    expect(back).toMatchObject({ leader: 1, isr: [{ nodeId: 1, nodeEpoch: 11 }] });
  });

  it('unclean election, only when enabled, takes any live replica with ISR = {it} and RECOVERING', () => {
    const lost = state({ isr: [{ nodeId: 0, nodeEpoch: 10 }] });
    expect(reconcilePartition(lost, nodes([2, 12]), config)).toMatchObject({ leader: -1 });
    const next = reconcilePartition(lost, nodes([2, 12]), { ...config, uncleanLeaderElectionEnable: true })!;
    expect(next).toMatchObject({ leader: 2, isr: [{ nodeId: 2, nodeEpoch: 12 }], leaderRecoveryState: 'RECOVERING' });
  });

  it('controlled shutdown moves leadership away and drops the node from the ISR', () => {
    const next = reconcilePartition(state(), nodes([0, 10, { shuttingDown: true }], [1, 11], [2, 12]), config)!;
    expect(next).toMatchObject({ leader: 1 });
    expect(next.isr.map((m) => m.nodeId)).toEqual([1, 2]);
  });

  it('preferred-leader election moves leadership back to replicas[0] when it is a live ISR member', () => {
    const led = state({ leader: 1 });
    expect(preferredLeaderChange(led, nodes([0, 10], [1, 11], [2, 12]))).toMatchObject({ leader: 0, leaderEpoch: 6 });
    expect(preferredLeaderChange(led, nodes([0, 40], [1, 11], [2, 12]))).toBeNull(); // a different incarnation
  });

  it('initial assignment spreads leaders over the nodes and waits for enough of them', () => {
    const live = [0, 1, 2].map((nodeId) => ({
      nodeId,
      nodeEpoch: nodeId + 1,
      endpoint: '',
      shuttingDown: false,
      previousNodeEpoch: -1,
    }));
    const states = initialPartitionStates(live, 6, 3)!;
    expect(states.map((s) => s.leader)).toEqual([0, 1, 2, 0, 1, 2]);
    expect(states[1].replicas).toEqual([1, 2, 0]);
    expect(initialPartitionStates(live.slice(0, 2), 6, 3)).toBeNull();
  });
});
