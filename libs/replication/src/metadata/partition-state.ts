/**
 * The controller's source of truth for one partition (Kafka's PartitionRegistration), as kept in the
 * metadata store. Every change goes through `MetadataStore.compareAndSetPartition` with the previous
 * `partitionEpoch`, so changes are linearized per partition even if two controllers overlap.
 */

/** `leader` when the partition has no leader (offline until an ISR/ELR member returns). */
export const NO_LEADER = -1;

/**
 * An ISR (or ELR) member: the node and the registration epoch it had when it was admitted (KIP-903).
 * A member whose node has since registered again (restart) is stale: the controller removes it, because
 * a restarted node may have lost unflushed data and must re-replicate before it counts again.
 */
export interface IsrMember {
  nodeId: number;
  nodeEpoch: number;
}

/** KIP-704: a leader elected uncleanly is RECOVERING until it reports RECOVERED; its ISR stays {leader}. */
export type LeaderRecoveryState = 'RECOVERED' | 'RECOVERING';

export interface PartitionState {
  partition: number;
  /** Assignment order; `replicas[0]` is the preferred leader. */
  replicas: number[];
  /** In-sync replicas. Contains the leader while there is one; never emptied (the last member stays). */
  isr: IsrMember[];
  /**
   * Eligible leader replicas (KIP-966): members removed from the ISR while it was below
   * MIN_INSYNC_REPLICAS, which therefore still hold every committed record. Empty when ELR is off.
   */
  elr: IsrMember[];
  /** NO_LEADER or a node id from `replicas`. */
  leader: number;
  /** +1 on every leader change (and forced bumps); stamped on every batch the leader appends. */
  leaderEpoch: number;
  /** +1 on every change of this record: the compare-and-set version. */
  partitionEpoch: number;
  leaderRecoveryState: LeaderRecoveryState;
}

export function isrIds(state: Pick<PartitionState, 'isr'>): number[] {
  return state.isr.map((m) => m.nodeId);
}

export function inIsr(state: Pick<PartitionState, 'isr'>, nodeId: number): boolean {
  return state.isr.some((m) => m.nodeId === nodeId);
}

/** The registration epoch under which `nodeId` is an ISR member, or undefined when it is not one. */
export function isrEpochOf(state: Pick<PartitionState, 'isr'>, nodeId: number): number | undefined {
  return state.isr.find((m) => m.nodeId === nodeId)?.nodeEpoch;
}

/** Deep copy, so that holders of a state can never mutate the store's or each other's copy. */
export function copyPartitionState(state: PartitionState): PartitionState {
  return {
    ...state,
    replicas: [...state.replicas],
    isr: state.isr.map((m) => ({ ...m })),
    elr: state.elr.map((m) => ({ ...m })),
  };
}

export function describePartitionState(s: PartitionState): string {
  const members = (list: IsrMember[]) => list.map((m) => `${m.nodeId}@${m.nodeEpoch}`).join(',');
  return (
    `p${s.partition} leader=${s.leader} le=${s.leaderEpoch} pe=${s.partitionEpoch} ` +
    `isr=[${members(s.isr)}] elr=[${members(s.elr)}] replicas=[${s.replicas.join(',')}]` +
    (s.leaderRecoveryState === 'RECOVERING' ? ' RECOVERING' : '')
  );
}
