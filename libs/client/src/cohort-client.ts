import type { MetadataNode } from '@cohort/protocol';
import { CohortAdmin } from './admin/cohort-admin';
import { resolveRetry, type ResolvedRetry, type RetryOptions } from './runtime/backoff';
import { realTimers, type Timers } from './runtime/timers';
import { CohortMember } from './member/cohort-member';
import { ConsumerGroupMember } from './member/consumer/consumer-group-member';
import { isConsumerProtocol, type ConsumerMemberOptions } from './member/consumer/consumer-member-options';
import type { MemberOptions } from './member/member-options';
import { ShareMember } from './share/share-member';
import type { ShareMemberOptions } from './share/share-options';
import { ClusterMetadata } from './transport/cluster-metadata';
import { ConnectionPool } from './transport/connection-pool';
import { socketIoFactory, type SocketFactory } from './transport/socket-like';

export interface CohortClientOptions {
  /**
   * Bootstrap URLs: one node of the cluster is enough. The client learns every live node from the first
   * one it reaches (Metadata) and locates each group's coordinator through any of them.
   */
  urls: string[];
  clientId?: string;
  /** A bearer token, or a function asked again on every (re)connect (e.g. to refresh a JWT). */
  token?: string | (() => string | Promise<string>);
  retry?: RetryOptions;
  /** Kafka's `metadata.max.age.ms`: how often (at least) the node list is refreshed while members run; default 300000, at least 1000. */
  metadataMaxAgeMs?: number;
  /** For tests and special transports: how sockets are made (default socket.io-client over WebSocket). */
  socketFactory?: SocketFactory;
  /** For tests: the clock, timers and randomness the members use. */
  timers?: Timers;
}

/** Kafka's `metadata.max.age.ms` default. */
const DEFAULT_METADATA_MAX_AGE_MS = 300_000;
/** One Metadata request's wait: as FindCoordinator's, short, so that a dead node costs little. */
const METADATA_TIMEOUT_MS = 3000;

/**
 * The entry point of @cohort/client: owns one socket per node, shared by the members it creates,
 * and hands out the admin client. `close()` stops every member and closes the sockets.
 */
export class CohortClient {
  private readonly pool: ConnectionPool;
  private readonly cluster: ClusterMetadata;
  private readonly members = new Set<{ stop(): Promise<void> }>();
  private readonly retry: ResolvedRetry;
  private readonly timers: Timers;
  private closed = false;

  constructor(private readonly options: CohortClientOptions) {
    if (
      !Array.isArray(options?.urls) ||
      options.urls.length === 0 ||
      options.urls.some((u) => typeof u !== 'string' || u.length === 0)
    ) {
      throw new RangeError('CohortClient needs `urls`: a non-empty array of node URLs');
    }
    const maxAgeMs = options.metadataMaxAgeMs ?? DEFAULT_METADATA_MAX_AGE_MS;
    if (!Number.isInteger(maxAgeMs) || maxAgeMs < 1000)
      throw new RangeError(`metadataMaxAgeMs must be an integer of at least 1000 (got ${String(maxAgeMs)})`);
    this.retry = resolveRetry(options.retry);
    this.timers = options.timers ?? realTimers;
    const auth = async (): Promise<Record<string, unknown>> => {
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      return {
        ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
        ...(token !== undefined ? { token } : {}),
      };
    };
    this.pool = new ConnectionPool(options.socketFactory ?? socketIoFactory, auth, this.timers, this.retry);
    this.cluster = new ClusterMetadata(options.urls, this.pool, this.timers, this.retry, {
      maxAgeMs,
      requestTimeoutMs: METADATA_TIMEOUT_MS,
    });
  }

  /** The live nodes learned from the cluster (`{ nodeId, url }`, advertised URLs); empty before the first answer. */
  get nodes(): readonly MetadataNode[] {
    return this.cluster.nodes;
  }

  /**
   * A new member of `options.groupId`; call `start()` on it to join. `groupProtocol: 'consumer'` makes a
   * member of a Kafka 4 consumer group (KIP-848), anything else a classic one.
   */
  member(options: ConsumerMemberOptions): ConsumerGroupMember;
  member(options: MemberOptions): CohortMember;
  member(options: MemberOptions | ConsumerMemberOptions): CohortMember | ConsumerGroupMember;
  member(options: MemberOptions | ConsumerMemberOptions): CohortMember | ConsumerGroupMember {
    if (this.closed) throw new RangeError('the client is closed');
    if (isConsumerProtocol(options)) {
      const member = new ConsumerGroupMember(options, {
        cluster: this.cluster,
        timers: this.timers,
        retry: this.retry,
        onStopped: (m) => this.members.delete(m),
      });
      this.members.add(member);
      return member;
    }
    const member = new CohortMember(options, {
      cluster: this.cluster,
      timers: this.timers,
      retry: this.retry,
      onStopped: (m) => this.members.delete(m),
    });
    this.members.add(member);
    return member;
  }

  /** A new member of the share group `options.groupId` (queues over offsets); `start()` it, then lease with `leases()`. */
  shareMember(options: ShareMemberOptions): ShareMember {
    if (this.closed) throw new RangeError('the client is closed');
    const member = new ShareMember(options, {
      cluster: this.cluster,
      timers: this.timers,
      retry: this.retry,
      onStopped: (m) => this.members.delete(m),
    });
    this.members.add(member);
    return member;
  }

  /** The operator calls over REST (same URLs and token). */
  admin(): CohortAdmin {
    return new CohortAdmin({
      urls: this.options.urls,
      ...(this.options.token !== undefined ? { token: this.options.token } : {}),
    });
  }

  /** Stops every member (commit, revoke, leave) and closes the sockets. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.members].map((m) => m.stop().catch(() => undefined)));
    this.cluster.close();
    this.pool.close();
  }
}
