import type { TopicPartitions } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import type { Timers } from '../runtime/timers';
import { AutoCommitTimer } from './auto-commit-timer';
import type { CommittedOffset, ProcessedOffset } from './member-events';
import { OffsetBook } from './offset-book';
import type { OffsetCommitter } from './offset-committer';
import type { PartitionSet } from './partition-set';

export interface MemberOffsetsDeps {
  committer: OffsetCommitter;
  timers: Timers;
  /** How long a commit is retried, and a fetch: the rebalance timeout. */
  retryForMs: number;
  /** null: auto-commit off. */
  autoCommitIntervalMs: number | null;
  owned(): PartitionSet;
  isStable(): boolean;
  committed(offsets: CommittedOffset[]): void;
  report(error: CohortError): void;
}

/**
 * A member's offsets: what the application marked, auto-commit on the interval, the commits before a
 * revoke and on stop (only what moved since the last acknowledged commit), explicit commits and reads.
 */
export class MemberOffsets {
  private readonly book = new OffsetBook();
  private readonly timer: AutoCommitTimer;

  constructor(private readonly deps: MemberOffsetsDeps) {
    this.timer = new AutoCommitTimer(deps.timers, deps.autoCommitIntervalMs, async (deadlineMs) => {
      if (!deps.isStable()) return false; // re-armed at the next assignment
      await this.send(this.book.uncommitted(deps.owned()), deadlineMs, false);
      return deps.isStable();
    });
  }

  get autoCommits(): boolean {
    return this.deps.autoCommitIntervalMs !== null;
  }

  mark(offset: ProcessedOffset): boolean {
    if (!Number.isInteger(offset?.offset) || offset.offset < 0)
      throw new RangeError(`markProcessed needs a non-negative integer offset (got ${String(offset?.offset)})`);
    return this.book.mark(offset, this.deps.owned());
  }

  /** Auto-commit's commit of what is marked for `partitions`; failures are reported, not thrown. */
  commitMarked(partitions: PartitionSet): Promise<void> {
    if (!this.autoCommits) return Promise.resolve();
    return this.send(this.book.uncommitted(partitions), this.deadline(), false);
  }

  /** `commit(offsets?)`: those offsets, or everything marked and not yet committed; rejects on failure. */
  commit(offsets?: ProcessedOffset[]): Promise<void> {
    if (offsets) for (const offset of offsets) this.book.mark(offset, this.deps.owned());
    return this.send(offsets ?? this.book.uncommitted(this.deps.owned()), this.deadline(), true);
  }

  fetch(partitions: TopicPartitions[]): Promise<CommittedOffset[]> {
    return this.deps.committer.fetch(partitions, this.deadline());
  }

  /** Partitions given up (after their commit) or lost (without one). */
  forget(partitions: PartitionSet): void {
    this.book.forget(partitions);
  }

  scheduleAutoCommit(): void {
    this.timer.schedule();
  }

  stopAutoCommit(): void {
    this.timer.stop();
  }

  /** Waits for every commit sent so far. */
  drain(): Promise<void> {
    return this.deps.committer.drain();
  }

  private deadline(): number {
    return this.deps.timers.now() + this.deps.retryForMs;
  }

  private async send(offsets: ProcessedOffset[], deadlineMs: number, rethrow: boolean): Promise<void> {
    if (offsets.length === 0) return;
    try {
      const done = await this.deps.committer.commit(offsets, deadlineMs);
      this.book.acknowledged(done);
      this.deps.committed(
        done.map((o) => ({ topic: o.topic, partition: o.partition, offset: o.offset, metadata: o.metadata ?? null })),
      );
    } catch (error) {
      const failure = CohortError.from(error);
      if (rethrow) throw failure;
      this.deps.report(failure);
    }
  }
}
