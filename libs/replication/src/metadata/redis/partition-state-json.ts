import type { IsrMember, PartitionState } from '../partition-state';

/**
 * PartitionState ↔ the JSON kept in Redis. Only the known fields are written, in a fixed order, so a
 * state always encodes the same way; reading checks the shape, so a value that something else wrote
 * under our keys is reported instead of being trusted.
 */
export function encodePartitionState(s: PartitionState): string {
  return JSON.stringify({
    partition: s.partition,
    replicas: s.replicas,
    isr: s.isr.map(member),
    elr: s.elr.map(member),
    leader: s.leader,
    leaderEpoch: s.leaderEpoch,
    partitionEpoch: s.partitionEpoch,
    leaderRecoveryState: s.leaderRecoveryState,
  });
}

export function decodePartitionState(json: string): PartitionState {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    throw new Error(`metadata store: partition state is not JSON: ${json.slice(0, 200)}`);
  }
  if (!isPartitionState(value)) throw new Error(`metadata store: malformed partition state: ${json.slice(0, 200)}`);
  return value;
}

/** Refuses to store a state that could not be read back (the caller's bug, reported before any write). */
export function checkPartitionState(s: PartitionState): void {
  if (!isPartitionState(s)) throw new TypeError(`not a valid PartitionState: ${JSON.stringify(s)}`);
}

function member(m: IsrMember): IsrMember {
  return { nodeId: m.nodeId, nodeEpoch: m.nodeEpoch };
}

function isPartitionState(v: unknown): v is PartitionState {
  if (typeof v !== 'object' || v === null) return false;
  const s = v as Record<string, unknown>;
  return (
    isInt(s.partition) &&
    Array.isArray(s.replicas) &&
    s.replicas.every(isInt) &&
    isMembers(s.isr) &&
    isMembers(s.elr) &&
    isInt(s.leader) &&
    isInt(s.leaderEpoch) &&
    isInt(s.partitionEpoch) &&
    (s.leaderRecoveryState === 'RECOVERED' || s.leaderRecoveryState === 'RECOVERING')
  );
}

function isMembers(v: unknown): boolean {
  return (
    Array.isArray(v) && v.every((m) => typeof m === 'object' && m !== null && isInt(m.nodeId) && isInt(m.nodeEpoch))
  );
}

function isInt(v: unknown): v is number {
  return Number.isSafeInteger(v);
}
