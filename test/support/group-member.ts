import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { createRangeAssignor } from '@cohort/assignors/range/range-assignor';
import { connect, request } from './socket-client';

export interface MemberOptions {
  topics: string[];
  clientId?: string;
  groupInstanceId?: string;
  sessionTimeoutMs?: number;
  rebalanceTimeoutMs?: number;
  serverAssignor?: string;
  heartbeatIntervalMs?: number;
  /** The subscription's userData (opaque to the coordinator; large ones make large JoinGroup and DescribeGroups answers). */
  userData?: unknown;
}

const range = createRangeAssignor();

/**
 * One consumer-group member over raw socket.io, as a Kafka client drives the classic protocol: explicit
 * join/sync/heartbeat/commit for tests that poke at one step, and an autopilot that behaves like a real
 * consumer (heartbeat; on a RebalanceInProgress push or REBALANCE_IN_PROGRESS rejoin; as leader, assign
 * with the range assignor over partition counts from Metadata).
 */
export class GroupMember {
  memberId = '';
  generationId = -1;
  leader = '';
  assignment: P.MemberAssignment | null = null;
  /** The generation `assignment` belongs to. */
  assignedGeneration = -1;
  /** Which response carried `assignment`: JoinGroup (server-side assignment) or SyncGroup. */
  assignedBy: 'JoinGroup' | 'SyncGroup' | null = null;
  /** What the autopilot saw go wrong that a retry cannot mend (tests assert it stays empty). */
  readonly problems: string[] = [];
  /** Called whenever a new assignment arrives (benchmarks time rebalances with it). */
  onAssigned: ((member: GroupMember) => void) | null = null;
  readonly pushes: P.RebalanceInProgressPush[] = [];
  private needsRejoin = true;
  /** Highest generation a RebalanceInProgress push has announced the end of. */
  private pushedGeneration = -1;
  private running = false;
  private loop: Promise<void> = Promise.resolve();
  private wake: (() => void) | null = null;

  private constructor(
    readonly socket: Socket,
    readonly groupId: string,
    readonly options: MemberOptions,
  ) {
    socket.on('RebalanceInProgress', (push: P.RebalanceInProgressPush) => {
      this.pushes.push(push);
      this.pushedGeneration = Math.max(this.pushedGeneration, push.generationId);
      this.wake?.();
    });
  }

  static async connect(url: string, groupId: string, options: MemberOptions): Promise<GroupMember> {
    return new GroupMember(await connect(url, { clientId: options.clientId ?? 'test-member' }), groupId, options);
  }

  joinRequest(): P.JoinGroupRequest {
    return {
      groupId: this.groupId,
      sessionTimeoutMs: this.options.sessionTimeoutMs ?? 10_000,
      rebalanceTimeoutMs: this.options.rebalanceTimeoutMs ?? 10_000,
      memberId: this.memberId,
      groupInstanceId: this.options.groupInstanceId ?? null,
      protocolType: 'consumer',
      protocols: [
        {
          name: 'range',
          metadata:
            this.options.userData === undefined
              ? { topics: this.options.topics }
              : { topics: this.options.topics, userData: this.options.userData },
        },
      ],
      serverAssignor: this.options.serverAssignor ?? null,
    };
  }

  /** JoinGroup; a new dynamic member gets MEMBER_ID_REQUIRED with its id first (KIP-394) and joins again. */
  async join(): Promise<P.JoinGroupResponse> {
    let response = await request<P.JoinGroupResponse>(this.socket, 'JoinGroup', this.joinRequest(), 30_000);
    if (response.errorCode === 79) {
      this.memberId = response.memberId;
      response = await request<P.JoinGroupResponse>(this.socket, 'JoinGroup', this.joinRequest(), 30_000);
    }
    if (response.errorCode === 0) {
      this.memberId = response.memberId;
      this.generationId = response.generationId;
      this.leader = response.leader;
      if (response.assignment !== undefined) this.assigned(response.assignment, 'JoinGroup');
    }
    return response;
  }

  /** SyncGroup; as leader, computes every member's assignment from the members' subscriptions. */
  async sync(joined: P.JoinGroupResponse): Promise<P.SyncGroupResponse> {
    const assignments =
      joined.leader === this.memberId && !joined.skipAssignment ? await this.assign(joined.members) : [];
    const response = await request<P.SyncGroupResponse>(
      this.socket,
      'SyncGroup',
      {
        groupId: this.groupId,
        generationId: this.generationId,
        memberId: this.memberId,
        groupInstanceId: this.options.groupInstanceId ?? null,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments,
      },
      30_000,
    );
    if (response.errorCode === 0) this.assigned(response.assignment, 'SyncGroup');
    return response;
  }

  heartbeat(generationId = this.generationId): Promise<P.HeartbeatResponse> {
    return request(this.socket, 'Heartbeat', {
      groupId: this.groupId,
      generationId,
      memberId: this.memberId,
      groupInstanceId: this.options.groupInstanceId ?? null,
    });
  }

  commit(
    offsets: { topic: string; partition: number; offset: number; metadata?: string }[],
    generationId = this.generationId,
  ): Promise<P.OffsetCommitResponse> {
    const topics = [...new Set(offsets.map((o) => o.topic))].map((name) => ({
      name,
      partitions: offsets
        .filter((o) => o.topic === name)
        .map((o) => ({
          partitionIndex: o.partition,
          committedOffset: o.offset,
          committedMetadata: o.metadata ?? null,
        })),
    }));
    return request(this.socket, 'OffsetCommit', {
      groupId: this.groupId,
      generationId,
      memberId: this.memberId,
      groupInstanceId: this.options.groupInstanceId ?? null,
      topics,
    });
  }

  leave(): Promise<P.LeaveGroupResponse> {
    return request(this.socket, 'LeaveGroup', {
      groupId: this.groupId,
      members: [{ memberId: this.memberId, groupInstanceId: this.options.groupInstanceId ?? null }],
    });
  }

  private assigned(assignment: unknown, by: 'JoinGroup' | 'SyncGroup'): void {
    this.assignment = assignment as P.MemberAssignment;
    this.assignedGeneration = this.generationId;
    this.assignedBy = by;
    this.onAssigned?.(this);
  }

  /** Starts behaving like a consumer in the background until stop(). */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
  }

  /** Stops the autopilot and closes the socket without leaving (a crashed client). */
  async vanish(): Promise<void> {
    this.running = false;
    this.wake?.();
    this.socket.disconnect(); // rejects a request still in flight, so the loop ends at once
    await this.loop;
  }

  /** Partitions held, as "topic-partition" strings, for comparing assignments. */
  held(): string[] {
    return (this.assignment?.partitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).sort();
  }

  private async run(): Promise<void> {
    while (this.running) {
      try {
        // A push names the generation that is ending; one about a generation this member has already
        // left behind (it rejoined for another reason meanwhile) needs nothing more.
        if (this.needsRejoin || this.pushedGeneration >= this.generationId) {
          this.needsRejoin = false;
          const joined = await this.join();
          if (joined.errorCode !== 0) this.afterError(joined.errorCode);
          else if (joined.assignment === undefined && this.options.serverAssignor !== undefined) {
            // Every member names the server assignor: the JoinGroup response must carry the assignment.
            // Falling back to SyncGroup would hide a server that stopped assigning.
            this.problems.push(`generation ${joined.generationId}: JoinGroup carried no server-side assignment`);
          } else if (joined.assignment === undefined) {
            const synced = await this.sync(joined);
            if (synced.errorCode !== 0) this.afterError(synced.errorCode);
          }
        } else {
          const beat = await this.heartbeat();
          if (beat.errorCode !== 0) this.afterError(beat.errorCode);
        }
      } catch {
        if (!this.socket.connected) return; // the test closed it
      }
      if (!this.needsRejoin && this.pushedGeneration < this.generationId)
        await this.pause(this.options.heartbeatIntervalMs ?? 100);
    }
  }

  /** Kafka's client reactions: rejoin on 22/27, forget the member id on 25. */
  private afterError(code: number): void {
    if (code === 25) this.memberId = '';
    this.needsRejoin = [22, 25, 27, 79].includes(code) || this.needsRejoin;
  }

  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.wake = null;
        resolve();
      }, ms);
      this.wake = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
    });
  }

  private async assign(members: P.JoinGroupMember[]): Promise<P.SyncGroupAssignment[]> {
    const subscriptions = members.map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      subscription: m.metadata as P.Subscription,
    }));
    const topics = [...new Set(subscriptions.flatMap((s) => s.subscription.topics))];
    const metadata = await request<P.MetadataResponse>(this.socket, 'Metadata', { topics });
    const partitionsPerTopic = Object.fromEntries(
      metadata.topics.filter((t) => t.errorCode === 0).map((t) => [t.name, t.partitions]),
    );
    const result = range.assign({ partitionsPerTopic }, subscriptions);
    return Object.entries(result).map(([memberId, assignment]) => ({ memberId, assignment }));
  }
}

/**
 * Waits until `condition` holds, polling; fails the test with `what` after `timeoutMs`, followed by what
 * `explain` says then (where things stood), when given.
 */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
  explain?: () => string | Promise<string>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what} (${timeoutMs} ms)${explain ? `\n${await explain()}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Every member holds an assignment of one and the same generation. */
export function settledTogether(members: GroupMember[]): boolean {
  const generation = members[0]?.generationId;
  return members.every((m) => m.generationId === generation && m.assignedGeneration === generation && generation > 0);
}
