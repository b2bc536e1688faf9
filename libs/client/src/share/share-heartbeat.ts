import { ErrorCode, type TopicPartitions } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import type { CoordinatorLink } from '../member/coordinator-link';
import { HeartbeatLoop } from '../member/heartbeat-loop';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import { newMemberId } from './member-id';
import type { ShareCalls } from './share-calls';
import type { ResolvedShareOptions } from './share-options';

export interface ShareHeartbeatHooks {
  joined(memberId: string, memberEpoch: number): void;
  assigned(partitions: TopicPartitions[], memberEpoch: number): void;
  /** The coordinator no longer knows this member at this epoch: its leases are gone; it joins again with epoch 0. */
  fenced(reason: string): void;
  crash(error: CohortError): void;
  report(error: CohortError): void;
}

/** Before the first answer tells the member its interval. */
const FIRST_INTERVAL_MS = 1000;

/**
 * A share member's membership (KIP-932 on KIP-848's rules): ShareGroupHeartbeat on its own timer at the
 * interval the coordinator gives, the whole request (subscription, rack) on joining and after any
 * error or reconnect, and only the epoch otherwise. UNKNOWN_MEMBER_ID and FENCED_MEMBER_EPOCH mean the
 * leases are gone: the member joins again at once with epoch 0, keeping its id (KIP-1082).
 */
export class ShareHeartbeat {
  readonly memberId = newMemberId();
  memberEpoch = 0;
  assignment: TopicPartitions[] = [];
  private intervalMs = FIRST_INTERVAL_MS;
  /** Send the whole request next time (joining, after an error or a reconnect). */
  private full = true;
  private readonly loop: HeartbeatLoop;
  private readonly backoff: Backoff;
  private stopped = false;

  constructor(
    private readonly options: ResolvedShareOptions,
    private readonly calls: ShareCalls,
    private readonly link: CoordinatorLink,
    private readonly timers: Timers,
    retry: ResolvedRetry,
    private readonly hooks: ShareHeartbeatHooks,
  ) {
    this.backoff = new Backoff(retry, timers);
    this.loop = new HeartbeatLoop(timers, FIRST_INTERVAL_MS, () => this.beat());
  }

  /** Joins at once and beats from then on. */
  start(): void {
    this.loop.start();
    this.loop.now();
  }

  /** Beat at once: a HeartbeatNow push, a reconnect, a moved coordinator (then with the whole request). */
  now(full = false): void {
    if (full) this.full = true;
    this.loop.now();
  }

  /** Another request was answered UNKNOWN_MEMBER_ID or FENCED_MEMBER_EPOCH: join again with epoch 0 at once. */
  rejoin(): void {
    if (this.stopped) return;
    this.memberEpoch = 0;
    this.assignment = [];
    this.now(true);
  }

  /** A throttled tab got a task: beat if one is overdue. */
  poke(): void {
    this.loop.poke();
  }

  /** Leaves the group with epoch -1 (the coordinator gives back every lease still held); one try. */
  async leave(): Promise<void> {
    this.stopped = true;
    this.loop.stop();
    if (this.memberEpoch <= 0) return;
    const epoch = this.memberEpoch;
    this.memberEpoch = -1;
    const answer = await this.calls.request(
      'ShareGroupHeartbeat',
      { groupId: this.options.groupId, memberId: this.memberId, memberEpoch: -1 },
      this.options.requestTimeoutMs,
    );
    if (answer.errorCode !== ErrorCode.NONE && answer.errorCode !== ErrorCode.UNKNOWN_MEMBER_ID)
      throw withContext(CohortError.fromResponse(answer as never), `leaving at epoch ${epoch}`);
  }

  stop(): void {
    this.stopped = true;
    this.loop.stop();
  }

  private async beat(): Promise<number> {
    if (this.stopped) return this.intervalMs;
    const full = this.full || this.memberEpoch === 0;
    const o = this.options;
    const request = {
      groupId: o.groupId,
      memberId: this.memberId,
      memberEpoch: this.memberEpoch,
      ...(full ? { subscribedTopicNames: o.topics, ...(o.rackId !== null ? { rackId: o.rackId } : {}) } : {}),
    };
    let answer;
    try {
      answer = await this.calls.request('ShareGroupHeartbeat', request, o.requestTimeoutMs);
    } catch (error) {
      this.full = true;
      this.hooks.report(CohortError.from(error));
      return this.backoff.next();
    }
    if (this.stopped) return this.intervalMs;
    if (answer.errorCode === ErrorCode.NONE) return this.accepted(answer, request.memberEpoch);
    const error = CohortError.fromResponse(answer as never);
    this.full = true;
    if (error.code === ErrorCode.UNKNOWN_MEMBER_ID || error.code === ErrorCode.FENCED_MEMBER_EPOCH) {
      this.memberEpoch = 0;
      this.assignment = [];
      this.hooks.fenced(`ShareGroupHeartbeat answered ${error.name}`);
      return 0;
    }
    if (error.code === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) this.link.markUnknown();
    if (!error.retriable) {
      this.hooks.crash(error);
      return this.intervalMs;
    }
    this.hooks.report(error);
    return this.backoff.next();
  }

  private accepted(
    answer: {
      memberId: string | null;
      memberEpoch: number;
      heartbeatIntervalMs: number;
      assignment: { topicPartitions: TopicPartitions[] } | null;
    },
    sentEpoch: number,
  ): number {
    this.backoff.reset();
    this.full = false;
    if (Number.isInteger(answer.heartbeatIntervalMs) && answer.heartbeatIntervalMs > 0)
      this.intervalMs = answer.heartbeatIntervalMs;
    // An answer to a beat of an epoch the member has since left (a leave raced it) changes nothing.
    if (sentEpoch !== this.memberEpoch) return this.intervalMs;
    const joining = this.memberEpoch === 0;
    this.memberEpoch = answer.memberEpoch;
    if (joining) this.hooks.joined(this.memberId, this.memberEpoch);
    if (answer.assignment) {
      this.assignment = answer.assignment.topicPartitions.map((tp) => ({
        topic: tp.topic,
        partitions: [...tp.partitions].sort((a, b) => a - b),
      }));
      this.hooks.assigned(this.assignment, this.memberEpoch);
    }
    return this.intervalMs;
  }
}

function withContext(error: CohortError, context: string): CohortError {
  error.message = `${context}: ${error.message}`;
  return error;
}
