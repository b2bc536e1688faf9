import { ErrorCode, type OffsetFetchTopic } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import { sleep } from '../runtime/wake-signal';
import type { CoordinatorLink } from './coordinator-link';
import type { CommittedOffset, ProcessedOffset } from './member-events';
import { toCommitTopics } from './offset-book';
import type { TopicPartitions } from '@cohort/protocol';

export interface CommitIdentity {
  /** The classic generation, or a consumer group member's epoch. */
  generationId: number;
  memberId: string;
  groupInstanceId: string | null;
  /** A consumer group member's count of memberships (a fence starts a new one); not sent. */
  incarnation?: number;
}

export interface CommitterHooks {
  /** The member's identity now (commits carry it; a change while retrying ends the retries). */
  identity(): CommitIdentity;
  /** The coordinator answered 25/22 for this identity: the generation is gone. */
  generationLost(identity: CommitIdentity, error: CohortError): void;
  /** The coordinator answered 27: the member must rejoin. */
  rebalanceInProgress(): void;
  /** The coordinator answered 82: another instance took this member's place. */
  fenced(error: CohortError): void;
  /** A retriable failure that is being retried. */
  retrying(error: CohortError): void;
  /**
   * Whether `now` is still the membership a commit began in. Default: the same generation and member
   * id. A consumer group member's epoch moves on within one membership, so it says so itself.
   */
  sameMembership?(now: CommitIdentity, began: CommitIdentity): boolean;
  /**
   * Consumer group members only: the coordinator answered 113 STALE_MEMBER_EPOCH (its epoch for the
   * member moved on). The commit is retried with the member's epoch of then; this asks for a heartbeat
   * to learn it. Without this hook 113 is not retried.
   */
  staleEpoch?(): void;
  /**
   * Consumer group members only: the member an OffsetFetch names, as Kafka 4's consumer names itself
   * (the coordinator refuses a fetch of a member it fenced: 25, or 113 for an epoch it moved on from), or
   * null while the member is not in the group. Without this hook a fetch names no member.
   */
  fetchMember?(): { memberId: string; memberEpoch: number } | null;
}

/** Errors after which a commit is tried again (Kafka's commitSync retries; 15/16/7/13 also rediscover). */
const RETRIED = new Set<number>([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.NETWORK_EXCEPTION,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.NOT_ENOUGH_REPLICAS,
  ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  ErrorCode.KAFKA_STORAGE_ERROR,
  ErrorCode.THROTTLING_QUOTA_EXCEEDED,
]);

/**
 * OffsetCommit and OffsetFetch for one member. Commits are sent one at a time in call order (so a
 * later commit never lands before an earlier one, as Kafka's commitAsync ordering promises) and are
 * retried with back-off until `deadline` while the member keeps its generation.
 */
export class OffsetCommitter {
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly groupId: string,
    private readonly link: CoordinatorLink,
    private readonly timers: Timers,
    private readonly retry: ResolvedRetry,
    private readonly requestTimeoutMs: number,
    private readonly hooks: CommitterHooks,
  ) {}

  commit(offsets: ProcessedOffset[], deadlineMs: number): Promise<ProcessedOffset[]> {
    const run = this.chain.then(() => this.send(offsets, deadlineMs));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** Waits for every commit sent so far. */
  drain(): Promise<void> {
    return this.chain.then(() => undefined);
  }

  private async send(offsets: ProcessedOffset[], deadlineMs: number): Promise<ProcessedOffset[]> {
    if (offsets.length === 0) return [];
    const began = this.hooks.identity();
    const same = (now: CommitIdentity): boolean =>
      this.hooks.sameMembership ? this.hooks.sameMembership(now, began) : sameIdentity(now, began);
    const backoff = new Backoff(this.retry, this.timers);
    for (;;) {
      // Each attempt carries the identity of its moment (a consumer group member's epoch may have moved on).
      const identity = this.hooks.identity();
      const error = await this.attempt(offsets, identity, same).then(
        () => null,
        (e: unknown) => (e instanceof CohortError ? e : CohortError.of('NETWORK_EXCEPTION', String(e), e)),
      );
      if (error === null) return offsets;
      const now = this.timers.now();
      const stale = error.code === ErrorCode.STALE_MEMBER_EPOCH && this.hooks.staleEpoch !== undefined;
      if ((!RETRIED.has(error.code) && !stale) || !same(this.hooks.identity()) || now >= deadlineMs) throw error;
      if (stale) this.hooks.staleEpoch?.();
      // 113 is not retriable for Kafka's error table, but this commit is being retried: report it so.
      this.hooks.retrying(
        stale ? new CohortError(error.code, error.message, { name: error.name, retriable: true }) : error,
      );
      await sleep(this.timers, Math.min(backoff.next(), Math.max(0, deadlineMs - now)));
      // The generation may have ended while waiting (a lost membership, the session fence): stop there.
      if (!same(this.hooks.identity())) throw error;
    }
  }

  private async attempt(
    offsets: ProcessedOffset[],
    identity: CommitIdentity,
    same: (now: CommitIdentity) => boolean,
  ): Promise<void> {
    const response = await this.link.request(
      'OffsetCommit',
      {
        groupId: this.groupId,
        generationId: identity.generationId,
        memberId: identity.memberId,
        ...(identity.groupInstanceId !== null ? { groupInstanceId: identity.groupInstanceId } : {}),
        topics: toCommitTopics(offsets),
      },
      this.requestTimeoutMs,
      // A commit that waited (for the coordinator to be found) past the end of its generation — the
      // membership lost, the session fence fallen — is not sent: its partitions may be someone else's.
      { beforeSend: () => (same(this.hooks.identity()) ? null : generationEnded(identity)) },
    );
    const code = response.errorCode !== ErrorCode.NONE ? response.errorCode : firstPartitionError(response.topics);
    if (code === ErrorCode.NONE) return;
    const error =
      response.errorCode !== ErrorCode.NONE
        ? CohortError.fromResponse(response as never)
        : new CohortError(code, `OffsetCommit failed for a partition`);
    if (code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.ILLEGAL_GENERATION)
      this.hooks.generationLost(identity, error);
    else if (code === ErrorCode.REBALANCE_IN_PROGRESS) this.hooks.rebalanceInProgress();
    else if (code === ErrorCode.FENCED_INSTANCE_ID) this.hooks.fenced(error);
    throw error;
  }

  /**
   * OffsetFetch with requireStable (KIP-447), retried on 88/14/15/16 and lost connections until `deadline`;
   * a consumer group member's fetch names it, and is retried on 113 with the epoch its next heartbeat brings.
   */
  async fetch(partitions: TopicPartitions[], deadlineMs: number): Promise<CommittedOffset[]> {
    const topics: OffsetFetchTopic[] = partitions.map((p) => ({ name: p.topic, partitionIndexes: [...p.partitions] }));
    if (topics.length === 0) return [];
    const backoff = new Backoff(this.retry, this.timers);
    for (;;) {
      let error: CohortError;
      // Each attempt names the member as it is then (its epoch may have moved on since the last).
      const member = this.hooks.fetchMember?.() ?? null;
      try {
        const response = await this.link.request(
          'OffsetFetch',
          { groupId: this.groupId, topics, requireStable: true, ...member },
          this.requestTimeoutMs,
        );
        const code = response.errorCode !== ErrorCode.NONE ? response.errorCode : firstPartitionError(response.topics);
        if (code === ErrorCode.NONE) {
          return response.topics.flatMap((t) =>
            t.partitions.map((p) => ({
              topic: t.name,
              partition: p.partitionIndex,
              offset: p.committedOffset < 0 ? null : p.committedOffset,
              metadata: p.metadata,
            })),
          );
        }
        error =
          response.errorCode !== ErrorCode.NONE
            ? CohortError.fromResponse(response as never)
            : new CohortError(code, 'OffsetFetch failed for a partition');
      } catch (e) {
        error = e instanceof CohortError ? e : CohortError.of('NETWORK_EXCEPTION', String(e), e);
      }
      const stale =
        error.code === ErrorCode.STALE_MEMBER_EPOCH && member !== null && this.hooks.staleEpoch !== undefined;
      const retried = RETRIED.has(error.code) || error.code === ErrorCode.UNSTABLE_OFFSET_COMMIT || stale;
      const now = this.timers.now();
      // UNKNOWN_TOPIC_OR_PARTITION on a fetch means the partition does not exist: not worth waiting for.
      if (!retried || error.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION || now >= deadlineMs) throw error;
      if (stale) this.hooks.staleEpoch?.();
      this.hooks.retrying(
        stale ? new CohortError(error.code, error.message, { name: error.name, retriable: true }) : error,
      );
      await sleep(this.timers, Math.min(backoff.next(), Math.max(0, deadlineMs - now)));
    }
  }
}

function firstPartitionError(topics: { partitions: { errorCode: number }[] }[]): number {
  for (const topic of topics ?? [])
    for (const p of topic.partitions) if (p.errorCode !== ErrorCode.NONE) return p.errorCode;
  return ErrorCode.NONE;
}

function generationEnded(identity: CommitIdentity): CohortError {
  return new CohortError(
    ErrorCode.ILLEGAL_GENERATION,
    `generation ${identity.generationId} ended before this commit could be sent; nothing was committed`,
    { retriable: false },
  );
}

function sameIdentity(a: CommitIdentity, b: CommitIdentity): boolean {
  return a.generationId === b.generationId && a.memberId === b.memberId;
}
