import { ReplicationErrorCode as E } from '../api/replication-error-code';
import type { PartitionState } from '../metadata/partition-state';
import type { AlterPartitionRequest } from '../transport/messages';
import { decideAlterPartition } from './alter-partition-validation';
import type { LiveNodes } from './partition-change';

const config = { minInsyncReplicas: 2, eligibleLeaderReplicasEnable: true };
const live: LiveNodes = new Map(
  [
    [0, 10],
    [1, 11],
    [2, 12],
  ].map(([nodeId, nodeEpoch]) => [
    nodeId,
    { nodeId, nodeEpoch, endpoint: '', shuttingDown: false, previousNodeEpoch: -1 },
  ]),
);
const current: PartitionState = {
  partition: 0,
  replicas: [0, 1, 2],
  isr: [
    { nodeId: 0, nodeEpoch: 10 },
    { nodeId: 1, nodeEpoch: 11 },
  ],
  elr: [],
  leader: 0,
  leaderEpoch: 3,
  partitionEpoch: 7,
  leaderRecoveryState: 'RECOVERED',
};
function req(over: Partial<AlterPartitionRequest>): AlterPartitionRequest {
  return {
    nodeId: 0,
    nodeEpoch: 10,
    partition: 0,
    leaderEpoch: 3,
    partitionEpoch: 7,
    newIsr: [...current.isr, { nodeId: 2, nodeEpoch: 12 }],
    leaderRecoveryState: 'RECOVERED',
    ...over,
  };
}

describe('AlterPartition validation', () => {
  it('accepts an expansion: partition epoch +1, leader epoch unchanged', () => {
    const d = decideAlterPartition(current, req({}), live, config);
    expect(d.errorCode).toBe(E.NONE);
    expect(d.next).toMatchObject({ leaderEpoch: 3, partitionEpoch: 8 });
    expect(d.next!.isr.map((m) => m.nodeId)).toEqual([0, 1, 2]);
  });

  it("answers in Kafka's order: stale leader epoch, wrong sender, stale partition epoch", () => {
    expect(decideAlterPartition(current, req({ leaderEpoch: 2 }), live, config).errorCode).toBe(E.FENCED_LEADER_EPOCH);
    expect(decideAlterPartition(current, req({ leaderEpoch: 4 }), live, config).errorCode).toBe(E.NOT_CONTROLLER);
    expect(decideAlterPartition(current, req({ nodeId: 1 }), live, config).errorCode).toBe(E.INVALID_REQUEST);
    expect(decideAlterPartition(current, req({ partitionEpoch: 6 }), live, config).errorCode).toBe(
      E.INVALID_UPDATE_VERSION,
    );
    expect(decideAlterPartition(null, req({}), live, config).errorCode).toBe(E.UNKNOWN_TOPIC_OR_PARTITION);
  });

  it('KIP-903: refuses a member whose registration epoch is not the one the leader saw fetching', () => {
    expect(
      decideAlterPartition(current, req({ newIsr: [...current.isr, { nodeId: 2, nodeEpoch: 5 }] }), live, config)
        .errorCode,
    ).toBe(E.INELIGIBLE_REPLICA);
  });

  it('refuses an ISR without its leader or outside the replicas, and RECOVERING with more than the leader', () => {
    expect(decideAlterPartition(current, req({ newIsr: [{ nodeId: 1, nodeEpoch: 11 }] }), live, config).errorCode).toBe(
      E.INVALID_REQUEST,
    );
    expect(
      decideAlterPartition(
        current,
        req({
          newIsr: [
            { nodeId: 0, nodeEpoch: 10 },
            { nodeId: 7, nodeEpoch: 1 },
          ],
        }),
        live,
        config,
      ).errorCode,
    ).toBe(E.INVALID_REQUEST);
    expect(
      decideAlterPartition(
        { ...current, leaderRecoveryState: 'RECOVERING' },
        req({ leaderRecoveryState: 'RECOVERING' }),
        live,
        config,
      ).errorCode,
    ).toBe(E.INVALID_REQUEST);
  });

  it('a shrink below the minimum puts the leaving members in the ELR', () => {
    const d = decideAlterPartition(current, req({ newIsr: [{ nodeId: 0, nodeEpoch: 10 }] }), live, config);
    expect(d.next!.elr).toEqual([{ nodeId: 1, nodeEpoch: 11 }]);
  });
});
