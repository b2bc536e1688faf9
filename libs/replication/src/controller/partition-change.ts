import type { NodeRegistration } from '../metadata/node-registration';
import { NO_LEADER, type IsrMember, type PartitionState } from '../metadata/partition-state';
import { effectiveMinIsr, type ReplicationConfig } from '../replication-config';

/** Live registrations by node id, as the controller sees them. */
export type LiveNodes = ReadonlyMap<number, NodeRegistration>;

type ElectionConfig = Pick<
  ReplicationConfig,
  'minInsyncReplicas' | 'uncleanLeaderElectionEnable' | 'eligibleLeaderReplicasEnable'
>;

/** Registered and not in controlled shutdown: may lead or be (re)admitted (PartitionChangeBuilder.acceptable). */
export function acceptable(nodes: LiveNodes, nodeId: number): boolean {
  const r = nodes.get(nodeId);
  return r !== undefined && !r.shuttingDown;
}

type MemberStatus = 'current' | 'carried' | 'fenced' | 'unclean' | 'shutting-down';

/**
 * How an ISR/ELR member stands against the live registrations: the same incarnation ('current'), a
 * restart that vouches for its data ('carried', KIP-966 clean shutdown), a restart that may have lost
 * data ('unclean', KIP-903: out until it re-replicates), gone ('fenced'), or leaving ('shutting-down').
 */
function statusOf(m: IsrMember, nodes: LiveNodes): { status: MemberStatus; member: IsrMember } {
  const r = nodes.get(m.nodeId);
  if (!r) return { status: 'fenced', member: m };
  const member = r.nodeEpoch === m.nodeEpoch ? m : { nodeId: m.nodeId, nodeEpoch: r.nodeEpoch };
  if (r.nodeEpoch !== m.nodeEpoch && r.previousNodeEpoch !== m.nodeEpoch) return { status: 'unclean', member };
  if (r.shuttingDown) return { status: 'shutting-down', member };
  return { status: r.nodeEpoch === m.nodeEpoch ? 'current' : 'carried', member };
}

function sameMembers(a: IsrMember[], b: IsrMember[]): boolean {
  return a.length === b.length && a.every((m, i) => m.nodeId === b[i].nodeId && m.nodeEpoch === b[i].nodeEpoch);
}

/**
 * KIP-966: while the ISR is below the minimum, members that leave it (except after an unclean restart)
 * become eligible leader replicas — they hold every committed record, because the HW stopped when the
 * ISR went below the minimum. At or above the minimum the ELR is cleared.
 */
function nextElr(
  config: ElectionConfig,
  rf: number,
  isr: IsrMember[],
  elr: IsrMember[],
  leaving: IsrMember[],
): IsrMember[] {
  if (!config.eligibleLeaderReplicasEnable || isr.length >= effectiveMinIsr(config, rf)) return [];
  const out: IsrMember[] = [];
  for (const m of [...elr, ...leaving]) {
    if (isr.some((i) => i.nodeId === m.nodeId) || out.some((o) => o.nodeId === m.nodeId)) continue;
    out.push(m);
  }
  return out;
}

/**
 * The controller's reaction to registrations (fencing, restarts, controlled shutdown) for one partition,
 * plus leader election when the leader is no longer valid (PartitionChangeBuilder).
 * Returns the next state (epochs bumped as KRaft's PartitionChangeBuilder bumps them) or null when nothing changes.
 */
export function reconcilePartition(
  state: PartitionState,
  nodes: LiveNodes,
  config: ElectionConfig,
): PartitionState | null {
  if (noKnownGoodMember(state, nodes)) {
    // Nobody is known to hold every committed record any more: some members restarted without
    // vouching for their data and the rest are gone. Keep them all, lead with none, and let the
    // controller compare their logs once they are all back (`uncleanRecoveryCandidates`) — dropping the
    // restarted ones now could leave exactly the one that lost its tail as the last member.
    if (state.leader === NO_LEADER) return null;
    return {
      ...state,
      leader: NO_LEADER,
      leaderEpoch: state.leaderEpoch + 1,
      partitionEpoch: state.partitionEpoch + 1,
    };
  }
  const rf = state.replicas.length;
  const isr: IsrMember[] = [];
  const leaving: IsrMember[] = [];
  const restartedLeader = { value: false };
  for (const m of state.isr) {
    const { status, member } = statusOf(m, nodes);
    if (m.nodeId === state.leader && status !== 'current') restartedLeader.value = true;
    if (status === 'current' || status === 'carried') isr.push(member);
    else if (status === 'fenced' || status === 'shutting-down') leaving.push(m);
  }
  const elrBefore: IsrMember[] = [];
  for (const m of state.elr) {
    const { status, member } = statusOf(m, nodes);
    if (status !== 'unclean') elrBefore.push(status === 'carried' ? member : m);
  }
  if (isr.length === 0 && !config.eligibleLeaderReplicasEnable && state.isr.length > 0) {
    // Without ELR the ISR is never emptied (I22): one member stays and the partition waits for it —
    // preferably one that is merely gone or leaving (its data is intact), not one that restarted and
    // may have lost its tail (Kafka fences brokers one at a time, so the restarted one would have left
    // first; only when every member restarted is the last replica standing unavoidable).
    isr.push(leaving[0] ?? statusOf(state.isr[0], nodes).member);
  }
  let elr = nextElr(config, rf, isr, elrBefore, leaving);
  const leaderValid =
    state.leader !== NO_LEADER &&
    !restartedLeader.value &&
    acceptable(nodes, state.leader) &&
    isr.some((m) => m.nodeId === state.leader);
  let leader = state.leader;
  let recovery = state.leaderRecoveryState;
  let finalIsr = isr;
  if (!leaderValid) {
    const elected = electLeader(state.replicas, isr, elr, nodes, config);
    leader = elected.leader;
    if (elected.isr) finalIsr = elected.isr;
    if (elected.elr) elr = elected.elr;
    if (elected.unclean) recovery = 'RECOVERING';
  }
  const leaderChanged = !leaderValid && !(state.leader === NO_LEADER && leader === NO_LEADER);
  if (!leaderChanged && sameMembers(finalIsr, state.isr) && sameMembers(elr, state.elr)) return null;
  return {
    ...state,
    isr: finalIsr,
    elr,
    leader,
    leaderRecoveryState: recovery,
    leaderEpoch: leaderChanged ? state.leaderEpoch + 1 : state.leaderEpoch,
    partitionEpoch: state.partitionEpoch + 1,
  };
}

interface Election {
  leader: number;
  isr?: IsrMember[];
  elr?: IsrMember[];
  unclean?: boolean;
}

/**
 * ONLINE/UNCLEAN election: the first ISR member in assignment order that is live with
 * its admitted incarnation; else, with an empty ISR, an ELR member (which becomes the ISR); else, when
 * enabled, any live replica (unclean: ISR = {it}, RECOVERING); else no leader.
 */
function electLeader(
  replicas: number[],
  isr: IsrMember[],
  elr: IsrMember[],
  nodes: LiveNodes,
  config: ElectionConfig,
): Election {
  const live = (m: IsrMember) => acceptable(nodes, m.nodeId) && nodes.get(m.nodeId)!.nodeEpoch === m.nodeEpoch;
  for (const id of replicas) {
    const m = isr.find((x) => x.nodeId === id);
    if (m && live(m)) return { leader: id };
  }
  if (isr.length === 0) {
    for (const id of replicas) {
      const m = elr.find((x) => x.nodeId === id);
      if (m && live(m)) return { leader: id, isr: [m], elr: elr.filter((x) => x.nodeId !== id) };
    }
  }
  if (config.uncleanLeaderElectionEnable) {
    for (const id of replicas) {
      if (acceptable(nodes, id))
        return { leader: id, isr: [{ nodeId: id, nodeEpoch: nodes.get(id)!.nodeEpoch }], elr: [], unclean: true };
    }
  }
  return { leader: NO_LEADER };
}

/** Every ISR and ELR member has registered again without vouching for its data (and there is one). */
function allMembersRestartedUncleanly(state: PartitionState, nodes: LiveNodes): boolean {
  const members = [...state.isr, ...state.elr];
  return members.length > 0 && members.every((m) => statusOf(m, nodes).status === 'unclean');
}

/** No ISR/ELR member is live with vouched-for data, and at least one restarted without vouching. */
function noKnownGoodMember(state: PartitionState, nodes: LiveNodes): boolean {
  const statuses = [...state.isr, ...state.elr].map((m) => statusOf(m, nodes).status);
  return statuses.includes('unclean') && !statuses.some((x) => x === 'current' || x === 'carried');
}

/**
 * KIP-966's unclean recovery ("balanced": wait for every last member, elect the longest history): the
 * nodes whose logs the controller must compare before electing, or null when the partition does not
 * need it. Only former ISR/ELR members are candidates — without ELR a sole member that lost its tail is
 * still elected (last replica standing, reference S8); with several, the one that kept the most wins.
 */
export function uncleanRecoveryCandidates(state: PartitionState, nodes: LiveNodes): number[] | null {
  if (state.leader !== NO_LEADER || !allMembersRestartedUncleanly(state, nodes)) return null;
  return [...new Set([...state.isr, ...state.elr].map((m) => m.nodeId))];
}

/** The recovered partition: the candidate with the most recent history leads alone (its ISR grows as the others catch up). */
export function recoverWith(
  state: PartitionState,
  nodes: LiveNodes,
  ends: Array<{ nodeId: number; logEndOffset: number; lastEpoch: number }>,
): PartitionState | null {
  let best: (typeof ends)[number] | undefined;
  for (const id of state.replicas) {
    const e = ends.find((x) => x.nodeId === id);
    if (!e) continue;
    if (!best || e.lastEpoch > best.lastEpoch || (e.lastEpoch === best.lastEpoch && e.logEndOffset > best.logEndOffset))
      best = e;
  }
  const registration = best && nodes.get(best.nodeId);
  if (!best || !registration || registration.shuttingDown) return null;
  return {
    ...state,
    leader: best.nodeId,
    isr: [{ nodeId: best.nodeId, nodeEpoch: registration.nodeEpoch }],
    elr: [],
    leaderEpoch: state.leaderEpoch + 1,
    partitionEpoch: state.partitionEpoch + 1,
  };
}

/**
 * PREFERRED election (auto leader rebalance): move leadership to `replicas[0]` when it is a live ISR
 * member and not the leader. Null when nothing to do.
 */
export function preferredLeaderChange(state: PartitionState, nodes: LiveNodes): PartitionState | null {
  const preferred = state.replicas[0];
  if (state.leader === preferred || state.leader === NO_LEADER) return null;
  const m = state.isr.find((x) => x.nodeId === preferred);
  if (!m || !acceptable(nodes, preferred) || nodes.get(preferred)!.nodeEpoch !== m.nodeEpoch) return null;
  return { ...state, leader: preferred, leaderEpoch: state.leaderEpoch + 1, partitionEpoch: state.partitionEpoch + 1 };
}

/**
 * Replica assignment when the controller first creates the partitions: consecutive live nodes starting
 * at the partition number, so leaders (replicas[0]) spread evenly. Null when too few nodes are live.
 */
export function initialPartitionStates(
  nodes: NodeRegistration[],
  numPartitions: number,
  replicationFactor: number,
): PartitionState[] | null {
  const live = [...nodes].filter((n) => !n.shuttingDown).sort((a, b) => a.nodeId - b.nodeId);
  if (live.length < replicationFactor) return null;
  const states: PartitionState[] = [];
  for (let p = 0; p < numPartitions; p++) {
    const members = Array.from({ length: replicationFactor }, (_, i) => live[(p + i) % live.length]);
    states.push({
      partition: p,
      replicas: members.map((n) => n.nodeId),
      isr: members.map((n) => ({ nodeId: n.nodeId, nodeEpoch: n.nodeEpoch })),
      elr: [],
      leader: members[0].nodeId,
      leaderEpoch: 0,
      partitionEpoch: 0,
      leaderRecoveryState: 'RECOVERED',
    });
  }
  return states;
}

export { nextElr };
