/** `client.shareMember(options)`: the options documented in libs/client/README.md ("Share groups"). */
export interface ShareMemberOptions {
  groupId: string;
  topics: string[];
  /** The most offsets one ShareAcquire leases, over all partitions (Kafka's max.poll.records); default 500. */
  maxRecords?: number;
  /** The most offsets in one lease; default `maxRecords`. */
  batchSize?: number;
  /**
   * `implicit` (default): asking for the next lease accepts what the previous one left unacknowledged.
   * `explicit`: the application acknowledges every offset itself; what it has not is kept and renewed.
   */
  acknowledgement?: 'implicit' | 'explicit';
  /** How long the coordinator may hold a ShareAcquire while nothing is leasable; default 5000, at most 300000. */
  maxWaitMs?: number;
  rackId?: string;
  /** How long an unanswered request waits (beyond `maxWaitMs` for ShareAcquire); default 10000. */
  requestTimeoutMs?: number;
}

export interface ResolvedShareOptions {
  groupId: string;
  topics: string[];
  maxRecords: number;
  batchSize: number;
  acknowledgement: 'implicit' | 'explicit';
  maxWaitMs: number;
  rackId: string | null;
  requestTimeoutMs: number;
}

/** The longest a coordinator holds a ShareAcquire (docs/protocol.md). */
const MAX_WAIT_MS = 300_000;

/** Checks the options up front, with a message naming each bad one. */
export function resolveShareOptions(options: ShareMemberOptions): ResolvedShareOptions {
  const problems: string[] = [];
  if (typeof options?.groupId !== 'string' || options.groupId.length === 0)
    problems.push('groupId must be a non-empty string');
  const topics = options?.topics;
  if (!Array.isArray(topics) || topics.length === 0 || topics.some((t) => typeof t !== 'string' || t.length === 0))
    problems.push('topics must be a non-empty array of topic names');
  const integer = (name: string, value: number | undefined, fallback: number, min: number): number => {
    if (value === undefined) return fallback;
    if (!Number.isInteger(value) || value < min)
      problems.push(`${name} must be an integer of at least ${min} (got ${String(value)})`);
    return value;
  };
  const maxRecords = integer('maxRecords', options?.maxRecords, 500, 1);
  const batchSize = integer('batchSize', options?.batchSize, maxRecords, 1);
  const maxWaitMs = integer('maxWaitMs', options?.maxWaitMs, 5000, 0);
  if (maxWaitMs > MAX_WAIT_MS) problems.push(`maxWaitMs must be at most ${MAX_WAIT_MS} (got ${maxWaitMs})`);
  const requestTimeoutMs = integer('requestTimeoutMs', options?.requestTimeoutMs, 10_000, 1000);
  const acknowledgement = options?.acknowledgement ?? 'implicit';
  if (acknowledgement !== 'implicit' && acknowledgement !== 'explicit')
    problems.push(`acknowledgement must be 'implicit' or 'explicit' (got ${String(acknowledgement)})`);
  if (options?.rackId !== undefined && (typeof options.rackId !== 'string' || options.rackId === ''))
    problems.push('rackId must be a non-empty string when given');
  if (problems.length > 0) throw new RangeError(`invalid share member options: ${problems.join('; ')}`);
  return {
    groupId: options.groupId,
    topics: [...new Set(topics)],
    maxRecords,
    batchSize,
    acknowledgement,
    maxWaitMs,
    rackId: options.rackId ?? null,
    requestTimeoutMs,
  };
}
