import { ReplicationErrorCode as E } from '../api/replication-error-code';
import type { AlterPartitionRequest, AlterPartitionResponse } from '../transport/messages';
import { isPending, proposalOf, type IsrState } from './isr-state';
import type { Partition } from './partition';
import { isCaughtUp, type RemoteReplicaState } from './remote-replica';

/**
 * ISR expansion on a follower fetch (maybeExpandIsr / isFollowerInSync, I18): only
 * when nothing is in flight, the leader has recovered, and the follower is eligible and has reached
 * both the HW and the start of the current leader epoch (KAFKA-7128). `lastCaughtUpTimeMs` is
 * deliberately not consulted.
 */
export function maybeExpandIsr(p: Partition, remote: RemoteReplicaState): void {
  if (p.role !== 'leader' || isPending(p.isrState) || p.isrState.recovery === 'RECOVERING') return;
  if (p.isrState.isr.some((m) => m.nodeId === remote.nodeId) || !p.replicas.includes(remote.nodeId)) return;
  if (!p.isIsrEligible(remote) || remote.nodeEpoch < 0) return;
  if (!p.ctx.rules.mayJoinIsr(remote.leo, p.hw, p.leaderEpochStartOffset)) return;
  const proposed = [...p.isrState.isr, { nodeId: remote.nodeId, nodeEpoch: remote.nodeEpoch }];
  p.isrState = {
    kind: 'pendingExpand',
    isr: p.isrState.isr,
    recovery: p.isrState.recovery,
    proposed,
    newMember: remote.nodeId,
  };
  p.ctx.events.onIsrProposal(p.partition);
}

/**
 * ISR shrink (maybeShrinkIsr, I19), run every REPLICA_LAG_TIME_MAX_MS / 2: members that
 * are not caught up are proposed for removal; until the controller accepts, they still count for the
 * HW (pendingShrink keeps the larger ISR).
 */
export function maybeShrinkIsr(p: Partition): void {
  if (p.role !== 'leader' || isPending(p.isrState)) return;
  const now = p.ctx.clock.now();
  const leo = p.log.logEndOffset;
  const outOfSync = p.isrState.isr
    .map((m) => m.nodeId)
    .filter((id) => id !== p.ctx.nodeId)
    .filter((id) => {
      const r = p.remotes.get(id);
      return !r || !isCaughtUp(r, leo, now, p.ctx.config.replicaLagTimeMaxMs);
    });
  if (outOfSync.length === 0) return;
  const proposed = p.isrState.isr.filter((m) => !outOfSync.includes(m.nodeId));
  p.isrState = {
    kind: 'pendingShrink',
    isr: p.isrState.isr,
    recovery: p.isrState.recovery,
    proposed,
    removed: outOfSync,
  };
  p.ctx.events.onIsrProposal(p.partition);
}

/**
 * A follower's connections closed (its process died): propose dropping it from the ISR now instead of
 * after REPLICA_LAG_TIME_MAX_MS, so acks=all writes stop waiting for a replica that cannot answer.
 * Never below the effective min ISR: a shrink there would not let the HW move (strict min ISR, I10)
 * and would only make acks=all appends fail; the lag-based expiry keeps Kafka's rule for that case.
 * Safe as any shrink is: until the controller commits it, pendingShrink keeps counting the member for
 * the HW (I17), and the controller checks the leader and partition epochs.
 */
export function maybeShrinkDisconnected(p: Partition): void {
  if (p.role !== 'leader' || isPending(p.isrState)) return;
  const room = p.isrState.isr.length - p.minIsr();
  if (room <= 0) return;
  const gone = p.isrState.isr
    .map((m) => m.nodeId)
    .filter((id) => id !== p.ctx.nodeId && !p.ctx.isConnected(id))
    .slice(0, room);
  if (gone.length === 0) return;
  const proposed = p.isrState.isr.filter((m) => !gone.includes(m.nodeId));
  p.isrState = { kind: 'pendingShrink', isr: p.isrState.isr, recovery: p.isrState.recovery, proposed, removed: gone };
  p.ctx.events.onIsrProposal(p.partition);
}

/** KIP-704: a leader elected uncleanly reports RECOVERED (its log is all it has) before the ISR may grow. */
export function maybeProposeRecovery(p: Partition): void {
  if (p.role !== 'leader' || isPending(p.isrState) || p.isrState.recovery !== 'RECOVERING') return;
  p.isrState = { kind: 'pendingRecovery', isr: p.isrState.isr, recovery: 'RECOVERING', proposed: p.isrState.isr };
  p.ctx.events.onIsrProposal(p.partition);
}

/** The AlterPartition request for the pending change, or undefined when none is pending. */
export function alterPartitionRequest(p: Partition): { request: AlterPartitionRequest; sent: IsrState } | undefined {
  const proposal = proposalOf(p.isrState);
  if (!proposal || p.role !== 'leader') return undefined;
  return {
    sent: p.isrState,
    request: {
      nodeId: p.ctx.nodeId,
      nodeEpoch: p.ctx.nodeEpoch(),
      partition: p.partition,
      leaderEpoch: p.leaderEpoch,
      partitionEpoch: p.partitionEpoch,
      newIsr: proposal.isr,
      leaderRecoveryState: proposal.recovery,
    },
  };
}

/**
 * The controller's answer to a proposal. Returns 'retry' when the same proposal should
 * be sent again (controller unavailable or moved), 'done' otherwise.
 */
export function applyAlterPartitionResponse(
  p: Partition,
  sent: IsrState,
  response: AlterPartitionResponse | undefined,
): 'done' | 'retry' {
  if (p.isrState !== sent || p.role !== 'leader') return 'done'; // newer metadata overrode the proposal
  if (!response) return 'retry';
  switch (response.errorCode) {
    case E.NONE: {
      const s = response.state;
      if (!s || s.leaderEpoch !== p.leaderEpoch || s.partitionEpoch < p.partitionEpoch) return 'done';
      p.isrState = { kind: 'committed', isr: s.isr.map((m) => ({ ...m })), recovery: s.leaderRecoveryState };
      p.partitionEpoch = s.partitionEpoch;
      p.maybeIncrementHighWatermark();
      return 'done';
    }
    case E.OPERATION_NOT_ATTEMPTED:
    case E.INELIGIBLE_REPLICA:
      p.isrState = { kind: 'committed', isr: sent.isr, recovery: sent.recovery };
      return 'done';
    case E.UNKNOWN_TOPIC_OR_PARTITION:
    case E.FENCED_LEADER_EPOCH:
    case E.INVALID_UPDATE_VERSION:
    case E.INVALID_REQUEST:
    case E.NEW_LEADER_ELECTED:
      return 'done'; // stay pending until new metadata replaces this state
    default:
      return 'retry';
  }
}
