import type { PartitionAssignor } from '@cohort/assignors';

/** `client.member(options)`: the options documented in libs/client/README.md. */
export interface MemberOptions {
  groupId: string;
  /** `'classic'` (the default): JoinGroup/SyncGroup/Heartbeat. `'consumer'` takes ConsumerMemberOptions instead. */
  groupProtocol?: 'classic';
  topics: string[];
  /** Leader-side assignors, built-in names or plugin objects, in order of preference; default ['cooperative-sticky']. */
  assignors?: (string | PartitionAssignor)[];
  /** Let the coordinator assign (server-side assignment) with this registered assignor instead. */
  serverAssignor?: string;
  groupInstanceId?: string;
  rackId?: string;
  /** Default 10000. */
  sessionTimeoutMs?: number;
  /** Default 60000: how long listeners may take, and how long the coordinator waits for a rejoin. */
  rebalanceTimeoutMs?: number;
  /** Default 3000; must be below the session timeout. */
  heartbeatIntervalMs?: number;
  /** Default { intervalMs: 5000 }. */
  autoCommit?: false | { intervalMs?: number };
}

export interface ResolvedMemberOptions {
  groupId: string;
  topics: string[];
  assignors: (string | PartitionAssignor)[];
  serverAssignor: string | null;
  groupInstanceId: string | null;
  rackId: string | null;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  autoCommitIntervalMs: number | null;
}

/** Checks the options up front, with a message naming the bad one, as KafkaJS's constructor does. */
export function resolveMemberOptions(options: MemberOptions): ResolvedMemberOptions {
  const problems: string[] = [];
  const protocol = (options as { groupProtocol?: unknown } | undefined)?.groupProtocol;
  if (protocol !== undefined && protocol !== 'classic')
    problems.push(`groupProtocol must be 'classic' or 'consumer' (got ${JSON.stringify(protocol)})`);
  if (typeof options?.groupId !== 'string' || options.groupId.length === 0)
    problems.push('groupId must be a non-empty string');
  const topics = options?.topics;
  if (!Array.isArray(topics) || topics.length === 0 || topics.some((t) => typeof t !== 'string' || t.length === 0)) {
    problems.push('topics must be a non-empty array of topic names');
  }
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value <= 0)
      problems.push(`${name} must be a positive integer (got ${String(value)})`);
    return value;
  };
  const sessionTimeoutMs = positive('sessionTimeoutMs', options?.sessionTimeoutMs, 10_000);
  const rebalanceTimeoutMs = positive('rebalanceTimeoutMs', options?.rebalanceTimeoutMs, 60_000);
  const heartbeatIntervalMs = positive(
    'heartbeatIntervalMs',
    options?.heartbeatIntervalMs,
    Math.min(3000, Math.floor(sessionTimeoutMs / 3)),
  );
  if (heartbeatIntervalMs >= sessionTimeoutMs)
    problems.push(`heartbeatIntervalMs (${heartbeatIntervalMs}) must be below sessionTimeoutMs (${sessionTimeoutMs})`);
  const autoCommit = options?.autoCommit;
  const autoCommitIntervalMs =
    autoCommit === false ? null : positive('autoCommit.intervalMs', autoCommit?.intervalMs, 5000);
  const assignors = options?.assignors ?? ['cooperative-sticky'];
  if (!Array.isArray(assignors) || assignors.length === 0) problems.push('assignors must be a non-empty array');
  if (
    options?.groupInstanceId !== undefined &&
    (typeof options.groupInstanceId !== 'string' || options.groupInstanceId.length === 0)
  ) {
    problems.push('groupInstanceId must be a non-empty string');
  }
  if (
    options?.serverAssignor !== undefined &&
    (typeof options.serverAssignor !== 'string' || options.serverAssignor.length === 0)
  ) {
    problems.push('serverAssignor must be a non-empty string');
  }
  if (problems.length > 0) throw new RangeError(`invalid member options: ${problems.join('; ')}`);
  return {
    groupId: options.groupId,
    topics: [...new Set(topics)].sort(),
    assignors,
    serverAssignor: options.serverAssignor ?? null,
    groupInstanceId: options.groupInstanceId ?? null,
    rackId: options.rackId ?? null,
    sessionTimeoutMs,
    rebalanceTimeoutMs,
    heartbeatIntervalMs,
    autoCommitIntervalMs,
  };
}
