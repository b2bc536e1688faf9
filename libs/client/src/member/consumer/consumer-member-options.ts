/**
 * `client.member({ groupProtocol: 'consumer', ... })`: a member of a Kafka 4 consumer group (KIP-848).
 * The coordinator assigns and sets the heartbeat interval and the session timeout, so the classic
 * protocol's `assignors`, `sessionTimeoutMs` and `heartbeatIntervalMs` have no meaning here and are
 * refused (Kafka's consumer refuses `partition.assignment.strategy`, `session.timeout.ms` and
 * `heartbeat.interval.ms` with `group.protocol=consumer` the same way).
 */
export interface ConsumerMemberOptions {
  groupId: string;
  groupProtocol: 'consumer';
  /** Topics subscribed by name; `topics`, `topicPattern` or both. */
  topics?: string[];
  /** An RE2 expression matched against whole topic names by the coordinator, e.g. `orders-.*`. */
  topicPattern?: string;
  /** A server assignor by name (`uniform`, `range` or a plugin); the group's default otherwise. */
  serverAssignor?: string;
  /** Static membership: a reload or restart with the same id within the session timeout keeps the partitions. */
  groupInstanceId?: string;
  rackId?: string;
  /** Default 60000: how long listeners may take before the coordinator fences a member that does not revoke. */
  rebalanceTimeoutMs?: number;
  /** Default { intervalMs: 5000 }. */
  autoCommit?: false | { intervalMs?: number };
}

export interface ResolvedConsumerMemberOptions {
  groupId: string;
  /** Sorted and without duplicates; null when subscribed by pattern only. */
  topics: string[] | null;
  topicPattern: string | null;
  serverAssignor: string | null;
  groupInstanceId: string | null;
  rackId: string | null;
  rebalanceTimeoutMs: number;
  autoCommitIntervalMs: number | null;
}

/** Options of the classic protocol only: named in the error when given with `groupProtocol: 'consumer'`. */
const CLASSIC_ONLY = ['assignors', 'sessionTimeoutMs', 'heartbeatIntervalMs'] as const;

/** True when the options ask for the consumer protocol (anything else is the classic one, or refused). */
export function isConsumerProtocol(options: unknown): options is ConsumerMemberOptions {
  return (options as { groupProtocol?: unknown } | null)?.groupProtocol === 'consumer';
}

/** Checks the options up front, naming every bad one, as the classic member's options are checked. */
export function resolveConsumerMemberOptions(options: ConsumerMemberOptions): ResolvedConsumerMemberOptions {
  const problems: string[] = [];
  const given = options as ConsumerMemberOptions & Partial<Record<(typeof CLASSIC_ONLY)[number], unknown>>;
  for (const name of CLASSIC_ONLY)
    if (given[name] !== undefined)
      problems.push(`${name} belongs to groupProtocol 'classic'; the coordinator decides it for 'consumer'`);
  if (typeof options.groupId !== 'string' || options.groupId.length === 0)
    problems.push('groupId must be a non-empty string');
  const topics = options.topics;
  if (
    topics !== undefined &&
    (!Array.isArray(topics) || topics.length === 0 || topics.some((t) => typeof t !== 'string' || t.length === 0))
  )
    problems.push('topics must be a non-empty array of topic names');
  const pattern = options.topicPattern;
  if (pattern !== undefined && (typeof pattern !== 'string' || pattern.length === 0))
    problems.push('topicPattern must be a non-empty string (an RE2 expression)');
  if (topics === undefined && pattern === undefined) problems.push('topics or topicPattern is required');
  const text = (name: keyof ConsumerMemberOptions): string | null => {
    const value = options[name];
    if (value === undefined) return null;
    if (typeof value !== 'string' || value.length === 0) problems.push(`${name} must be a non-empty string`);
    return value as string;
  };
  const serverAssignor = text('serverAssignor');
  const groupInstanceId = text('groupInstanceId');
  const rackId = text('rackId');
  const positive = (name: string, value: number | undefined, fallback: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value <= 0)
      problems.push(`${name} must be a positive integer (got ${String(value)})`);
    return value;
  };
  const rebalanceTimeoutMs = positive('rebalanceTimeoutMs', options.rebalanceTimeoutMs, 60_000);
  const autoCommit = options.autoCommit;
  const autoCommitIntervalMs =
    autoCommit === false ? null : positive('autoCommit.intervalMs', autoCommit?.intervalMs, 5000);
  if (problems.length > 0) throw new RangeError(`invalid member options: ${problems.join('; ')}`);
  return {
    groupId: options.groupId,
    topics: topics === undefined ? null : [...new Set(topics)].sort(),
    topicPattern: pattern ?? null,
    serverAssignor,
    groupInstanceId,
    rackId,
    rebalanceTimeoutMs,
    autoCommitIntervalMs,
  };
}
