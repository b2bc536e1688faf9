import { io, type Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { createRangeAssignor } from '@cohort/assignors/range/range-assignor';
import { firstConnect } from './first-connect';

/**
 * What a large group's members are given (bench/rebalance.bench.ts). The request timeouts are the Java
 * consumer's: JoinGroup waits for the rebalance timeout plus 5 s (AbstractCoordinator's
 * JOIN_GROUP_TIMEOUT_LAPSE), every other request for request.timeout.ms (30 s).
 */
export interface BenchMemberOptions {
  topic: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs: number;
  heartbeatIntervalMs: number;
  serverAssignor: string | null;
}

const REQUEST_TIMEOUT_MS = 30_000;
/** The Java consumer's retry.backoff.ms, before rejoining after an error. */
const RETRY_BACKOFF_MS = 100;

/** What went wrong for a slice of members, so a slow or failed run says why (summed per worker), and the leader's message sizes. */
export interface MemberStats {
  /** JSON bytes of the leader's JoinGroup answer (every member's metadata) and of its SyncGroup (every member's assignment). */
  leaderJoinAnswerBytes: number;
  leaderSyncRequestBytes: number;
  joinTimeouts: number;
  syncTimeouts: number;
  heartbeatTimeouts: number;
  /** Error codes received, by request and code ("SyncGroup 27": REBALANCE_IN_PROGRESS), MEMBER_ID_REQUIRED excluded. */
  errors: Record<string, number>;
}

export function noStats(): MemberStats {
  return {
    leaderJoinAnswerBytes: 0,
    leaderSyncRequestBytes: 0,
    joinTimeouts: 0,
    syncTimeouts: 0,
    heartbeatTimeouts: 0,
    errors: {},
  };
}

const range = createRangeAssignor();

/**
 * A consumer-group member that does only what a Kafka consumer does in a group, and nothing a
 * benchmark would measure instead of the coordinator: JoinGroup (KIP-394 id first), SyncGroup (the
 * leader assigns with the range assignor over Metadata's partition count), a heartbeat every
 * `heartbeatIntervalMs` while it is in a generation and not joining, and a rejoin on a
 * RebalanceInProgress push, on a rebalance error, or when a join or sync request timed out. It keeps
 * no history (thousands run in one process), only counts what went wrong in a shared `MemberStats`.
 */
export class BenchMember {
  memberId = '';
  generationId = -1;
  /** The generation whose assignment `held` counts. */
  assignedGeneration = -1;
  assignment: P.MemberAssignment | null = null;
  held = 0;
  /** performance.timeOrigin + now() when this member first sent JoinGroup, and when a successful JoinGroup last came back. */
  firstJoinSentAt = 0;
  lastJoinAnsweredAt = 0;
  onAssigned: (() => void) | null = null;
  /** joining: a JoinGroup is in flight (no heartbeats, as the Java consumer); syncing: waiting for the assignment. */
  private phase: 'idle' | 'joining' | 'syncing' | 'stable' = 'idle';
  /** The join-and-sync loop runs (a push or error meanwhile needs no second one: its sync or join fails and it rejoins). */
  private rebalancing = false;
  private running = false;
  private heartbeatTimer: NodeJS.Timeout | null = null;

  private constructor(
    private readonly socket: Socket,
    private readonly groupId: string,
    private readonly options: BenchMemberOptions,
    private readonly stats: MemberStats,
  ) {
    // socket.io's reason ("ping timeout", "transport close", ...) says which side gave up on the connection.
    socket.on('disconnect', (reason: string) => {
      if (this.running) this.error(`disconnect (${reason})`, 0);
    });
    socket.on('RebalanceInProgress', (push: P.RebalanceInProgressPush) => {
      // A push about a generation this member has already left behind needs nothing.
      if (push.generationId >= this.generationId) this.rejoin();
    });
  }

  static connect(url: string, groupId: string, options: BenchMemberOptions, stats: MemberStats): Promise<BenchMember> {
    // A consumer whose connection drops reconnects (within MEMBER_DISCONNECT_GRACE_MS it keeps its
    // membership); requests sent meanwhile wait for the new connection.
    const socket = io(url, {
      transports: ['websocket'],
      auth: { clientId: 'bench-member' },
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
      forceNew: true,
    });
    return firstConnect(socket).then(() => new BenchMember(socket, groupId, options, stats));
  }

  start(): void {
    this.running = true;
    this.rejoin();
  }

  /** Closes the socket without leaving (a crashed consumer). */
  vanish(): void {
    this.running = false;
    this.stopHeartbeats();
    this.socket.disconnect();
  }

  /** Commits offset 1 of every held partition; resolves with how many were committed (errors are counted, a timeout is 0). */
  async commit(): Promise<number> {
    const partitions = (this.assignment?.partitions ?? []).flatMap((tp) =>
      tp.partitions.map((p) => ({ partitionIndex: p, committedOffset: 1, committedMetadata: null })),
    );
    try {
      const response = await this.request<P.OffsetCommitResponse>(
        'OffsetCommit',
        {
          groupId: this.groupId,
          generationId: this.generationId,
          memberId: this.memberId,
          groupInstanceId: null,
          topics: [{ name: this.options.topic, partitions }],
        },
        REQUEST_TIMEOUT_MS,
      );
      let committed = 0;
      for (const p of response.topics.flatMap((t) => t.partitions)) {
        if (p.errorCode === 0) committed++;
        else this.error('OffsetCommit', p.errorCode);
      }
      return committed;
    } catch {
      this.error('OffsetCommit', -1);
      return 0;
    }
  }

  private request<T>(event: string, payload: unknown, timeoutMs: number): Promise<T> {
    return this.socket.timeout(timeoutMs).emitWithAck(event, payload) as Promise<T>;
  }

  private error(request: string, code: number): void {
    const key = code === 0 ? request : `${request} ${code}`;
    this.stats.errors[key] = (this.stats.errors[key] ?? 0) + 1;
  }

  /** Joins (again) unless a join is already in flight: the coordinator answers that one with the new generation. */
  private rejoin(): void {
    if (!this.running || this.rebalancing) return;
    this.rebalancing = true;
    void this.joinAndSync().finally(() => (this.rebalancing = false));
  }

  private async joinAndSync(): Promise<void> {
    for (let attempt = 0; this.running; attempt++) {
      this.phase = 'joining';
      this.stopHeartbeats();
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, RETRY_BACKOFF_MS));
      const joined = await this.join();
      if (!this.running) return;
      if (joined === null) continue;
      if (joined.assignment !== undefined) {
        this.assigned(joined.assignment as P.MemberAssignment);
        return;
      }
      if (this.options.serverAssignor !== null)
        throw new Error('every member names the server assignor, yet JoinGroup carried no assignment');
      if (await this.sync(joined)) return;
    }
  }

  /** JoinGroup until it succeeds once or fails; null after an error or timeout (the caller retries). */
  private async join(): Promise<P.JoinGroupResponse | null> {
    const timeoutMs = this.options.rebalanceTimeoutMs + 5000;
    for (;;) {
      if (this.firstJoinSentAt === 0) this.firstJoinSentAt = performance.timeOrigin + performance.now();
      let response: P.JoinGroupResponse;
      try {
        response = await this.request<P.JoinGroupResponse>('JoinGroup', this.joinRequest(), timeoutMs);
      } catch {
        this.stats.joinTimeouts++;
        return null;
      }
      if (response.errorCode === 79) {
        this.memberId = response.memberId;
        continue;
      }
      if (response.errorCode !== 0) {
        this.error('JoinGroup', response.errorCode);
        if (response.errorCode === 25) this.memberId = '';
        return null;
      }
      this.memberId = response.memberId;
      this.generationId = response.generationId;
      this.lastJoinAnsweredAt = performance.timeOrigin + performance.now();
      return response;
    }
  }

  private joinRequest(): P.JoinGroupRequest {
    const { sessionTimeoutMs, rebalanceTimeoutMs, topic, serverAssignor } = this.options;
    return {
      groupId: this.groupId,
      sessionTimeoutMs,
      rebalanceTimeoutMs,
      memberId: this.memberId,
      groupInstanceId: null,
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: [topic] } }],
      serverAssignor,
    };
  }

  /** SyncGroup (with the assignment, as leader); true once this member holds its assignment. */
  private async sync(joined: P.JoinGroupResponse): Promise<boolean> {
    // Heartbeats go on while the member waits for its assignment, as the Java consumer's heartbeat thread does.
    this.phase = 'syncing';
    this.scheduleHeartbeat();
    try {
      const leads = joined.leader === this.memberId && !joined.skipAssignment;
      const assignments = leads ? await this.assign(joined.members) : [];
      const request = {
        groupId: this.groupId,
        generationId: joined.generationId,
        memberId: this.memberId,
        groupInstanceId: null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments,
      };
      if (leads) {
        this.stats.leaderJoinAnswerBytes = Buffer.byteLength(JSON.stringify(joined));
        this.stats.leaderSyncRequestBytes = Buffer.byteLength(JSON.stringify(request));
      }
      const response = await this.request<P.SyncGroupResponse>('SyncGroup', request, REQUEST_TIMEOUT_MS);
      if (response.errorCode !== 0) {
        this.error('SyncGroup', response.errorCode);
        if (response.errorCode === 25) this.memberId = '';
        return false;
      }
      this.assigned(response.assignment as P.MemberAssignment);
      return true;
    } catch {
      this.stats.syncTimeouts++;
      return false;
    }
  }

  private async assign(members: P.JoinGroupMember[]): Promise<P.SyncGroupAssignment[]> {
    const metadata = await this.request<P.MetadataResponse>(
      'Metadata',
      { topics: [this.options.topic] },
      REQUEST_TIMEOUT_MS,
    );
    const partitionsPerTopic = Object.fromEntries(
      metadata.topics.filter((t) => t.errorCode === 0).map((t) => [t.name, t.partitions]),
    );
    const subscriptions = members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      subscription: m.metadata as P.Subscription,
    }));
    return Object.entries(range.assign({ partitionsPerTopic }, subscriptions)).map(([memberId, assignment]) => ({
      memberId,
      assignment,
    }));
  }

  private assigned(assignment: P.MemberAssignment): void {
    this.assignment = assignment;
    this.assignedGeneration = this.generationId;
    this.held = (assignment?.partitions ?? []).reduce((n, tp) => n + tp.partitions.length, 0);
    this.phase = 'stable';
    this.scheduleHeartbeat();
    this.onAssigned?.();
  }

  private scheduleHeartbeat(): void {
    this.stopHeartbeats();
    this.heartbeatTimer = setTimeout(() => void this.heartbeat(), this.options.heartbeatIntervalMs);
  }

  private stopHeartbeats(): void {
    if (this.heartbeatTimer) clearTimeout(this.heartbeatTimer);
    this.heartbeatTimer = null;
  }

  private async heartbeat(): Promise<void> {
    this.heartbeatTimer = null;
    if (!this.heartbeats()) return;
    const generationId = this.generationId;
    try {
      const response = await this.request<P.HeartbeatResponse>(
        'Heartbeat',
        { groupId: this.groupId, generationId, memberId: this.memberId, groupInstanceId: null },
        REQUEST_TIMEOUT_MS,
      );
      // An answer about a generation this member has meanwhile left (the Java consumer's generationUnchanged()) needs nothing.
      if (response.errorCode !== 0 && generationId === this.generationId) {
        this.error('Heartbeat', response.errorCode);
        if (response.errorCode === 25) this.memberId = '';
        if ([22, 25, 27].includes(response.errorCode)) {
          this.rejoin();
          return;
        }
      }
    } catch {
      this.stats.heartbeatTimeouts++;
    }
    // The next heartbeat is due an interval after this one was sent, unless a rejoin stopped them meanwhile.
    if (this.heartbeats() && this.heartbeatTimer === null) this.scheduleHeartbeat();
  }

  /** Whether heartbeats are due (not while a JoinGroup is in flight, as the Java consumer). */
  private heartbeats(): boolean {
    return this.running && this.phase !== 'joining';
  }
}
