import { ReplicationErrorCode as E } from '../api/replication-error-code';
import type { PartitionState } from '../metadata/partition-state';
import type { ReplicationConfig } from '../replication-config';
import type { AlterPartitionRequest } from '../transport/messages';
import { nextElr, type LiveNodes } from './partition-change';

export type AlterPartitionDecision = { errorCode: number; next?: undefined } | { errorCode: 0; next: PartitionState };

/**
 * The controller's checks of a leader's ISR proposal, in Kafka's order
 * (ReplicationControlManager.validateAlterPartitionData). On success the next state
 * keeps the leader epoch and bumps the partition epoch; ISR expansion never bumps the leader epoch.
 */
export function decideAlterPartition(
  state: PartitionState | null,
  req: AlterPartitionRequest,
  nodes: LiveNodes,
  config: Pick<ReplicationConfig, 'minInsyncReplicas' | 'eligibleLeaderReplicasEnable'>,
): AlterPartitionDecision {
  if (!state) return { errorCode: E.UNKNOWN_TOPIC_OR_PARTITION };
  if (req.leaderEpoch > state.leaderEpoch || req.partitionEpoch > state.partitionEpoch)
    return { errorCode: E.NOT_CONTROLLER };
  if (req.leaderEpoch < state.leaderEpoch) return { errorCode: E.FENCED_LEADER_EPOCH };
  if (req.nodeId !== state.leader) return { errorCode: E.INVALID_REQUEST };
  if (req.partitionEpoch < state.partitionEpoch) return { errorCode: E.INVALID_UPDATE_VERSION };
  const ids = req.newIsr.map((m) => m.nodeId);
  if (
    new Set(ids).size !== ids.length ||
    !ids.every((id) => state.replicas.includes(id)) ||
    !ids.includes(req.nodeId) ||
    (req.leaderRecoveryState === 'RECOVERING' && ids.length > 1) ||
    (state.leaderRecoveryState === 'RECOVERED' && req.leaderRecoveryState === 'RECOVERING')
  ) {
    return { errorCode: E.INVALID_REQUEST };
  }
  // KIP-903: every member must be live, not leaving, and the same incarnation the leader saw fetching.
  for (const m of req.newIsr) {
    const r = nodes.get(m.nodeId);
    if (!r || r.shuttingDown || r.nodeEpoch !== m.nodeEpoch) return { errorCode: E.INELIGIBLE_REPLICA };
  }
  const newIsr = req.newIsr.map((m) => ({ ...m }));
  const leaving = state.isr.filter((m) => !ids.includes(m.nodeId));
  const elrCandidates = state.elr.filter((m) => !ids.includes(m.nodeId));
  return {
    errorCode: 0,
    next: {
      ...state,
      isr: newIsr,
      elr: nextElr(
        { ...config, uncleanLeaderElectionEnable: false },
        state.replicas.length,
        newIsr,
        elrCandidates,
        leaving,
      ),
      leaderRecoveryState: req.leaderRecoveryState,
      partitionEpoch: state.partitionEpoch + 1,
    },
  };
}
