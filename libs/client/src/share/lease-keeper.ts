import { ErrorCode } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import type { Timers } from '../runtime/timers';
import { type LeaseBook, type PendingAck } from './lease-book';
import type { ShareCalls } from './share-calls';
import type { AcknowledgedEvent, Lease } from './share-events';
import type { ResolvedShareOptions } from './share-options';
import type { PartitionAcks } from './share-wire';

export interface LeaseKeeperHooks {
  memberId(): string;
  /** The lock duration the coordinator last told (ShareAcquire's acquisitionLockTimeoutMs). */
  lockMs(): number;
  /** Whether the member may send now (it is joined); renewals and flushes wait otherwise. */
  joined(): boolean;
  /** A ShareAcquire is out: acknowledgements made meanwhile go on their own instead of waiting for the next one. */
  acquiring(): boolean;
  lost(leases: Lease[], reason: string): void;
  acknowledged(event: AcknowledgedEvent): void;
  fenced(reason: string): void;
  report(error: CohortError): void;
}

const TYPE_NAMES = ['gap', 'accept', 'release', 'reject'] as const;

/**
 * Keeps a share member's leases alive and its acknowledgements moving: one timer for the next thing
 * due in the LeaseBook. A held lease is renewed (ShareAcknowledge with type 4 RENEW) two thirds into its
 * lock; one whose lock ran out anyway is reported `lost`; an acknowledgement that no ShareAcquire took
 * along is sent on its own before its lease's lock could run out (and at once while a ShareAcquire is
 * held by the coordinator). Sends are one at a time, in order.
 */
export class LeaseKeeper {
  private timer: unknown = null;
  private chain: Promise<unknown> = Promise.resolve();
  private stopped = false;

  constructor(
    private readonly book: LeaseBook,
    private readonly calls: ShareCalls,
    private readonly options: ResolvedShareOptions,
    private readonly timers: Timers,
    private readonly hooks: LeaseKeeperHooks,
  ) {}

  /** Sets the timer for the next thing due (call after anything changed the book). */
  schedule(): void {
    if (this.stopped) return;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    // Nothing can be sent before the member is joined; joining schedules again.
    if (!this.hooks.joined()) return;
    const urgent = this.book.hasPending && this.hooks.acquiring();
    const due = urgent ? this.timers.now() : this.book.nextDue();
    this.timer =
      due === null
        ? null
        : this.timers.setTimeout(
            () => {
              this.timer = null;
              this.tick();
            },
            Math.max(0, due - this.timers.now()),
          );
  }

  /** Sends every pending acknowledgement (and due renewals) now; resolves with the outcome per partition. */
  flush(): Promise<AcknowledgedEvent[]> {
    return this.enqueue(true);
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const lost = this.book.expire(this.timers.now());
    if (lost.length > 0) this.hooks.lost(lost, 'the lock ran out before the lease was acknowledged or renewed');
    // Not awaited: a send the coordinator does not answer must not hold back the next lock's expiry.
    if (this.hooks.joined()) void this.enqueue(false).then(() => this.schedule());
    this.schedule();
  }

  /**
   * Takes what is to go now (all pending acknowledgements, or only when one is due, plus the due
   * renewals) at once, so the timer sees it as out, and sends it after the sends before it.
   */
  private enqueue(all: boolean): Promise<AcknowledgedEvent[]> {
    const now = this.timers.now();
    const urgent = all || this.hooks.acquiring() || this.book.flushDue(now);
    const { acks, taken } = urgent ? this.book.takePending() : { acks: [], taken: [] };
    const renewals = this.book.takeRenewals(now);
    if (acks.length === 0 && renewals.leases.length === 0) return this.chain.then(() => []);
    const run = this.chain.then(() => this.send(merge(acks, renewals.acks), taken, renewals.leases));
    this.chain = run.catch(() => undefined);
    return run;
  }

  /** One ShareAcknowledge; its answer settles the acknowledgements and renewals it carried. */
  private async send(
    acknowledgements: PartitionAcks[],
    taken: PendingAck[],
    renewals: Lease[],
  ): Promise<AcknowledgedEvent[]> {
    const sentAt = this.timers.now();
    let answer;
    try {
      answer = await this.calls.request(
        'ShareAcknowledge',
        { groupId: this.options.groupId, memberId: this.hooks.memberId(), acknowledgements },
        this.options.requestTimeoutMs,
      );
    } catch (error) {
      this.book.requeue(taken);
      for (const lease of renewals) this.book.renewalUnanswered(lease);
      this.hooks.report(CohortError.from(error));
      return [];
    }
    return this.settle(answer, taken, renewals, sentAt);
  }

  private settle(
    answer: {
      errorCode: number;
      partitions?: { topic: string; partition: number; errorCode: number; errorMessage?: string }[];
    },
    taken: PendingAck[],
    renewed: Lease[],
    sentAt: number,
  ): AcknowledgedEvent[] {
    const whole = answer.errorCode === ErrorCode.NONE ? null : CohortError.fromResponse(answer as never);
    if (whole?.retriable) {
      // Nothing was applied: the acknowledgements go again, the renewals are tried again.
      this.book.requeue(taken);
      for (const lease of renewed) this.book.renewalUnanswered(lease);
      this.hooks.report(whole);
      return [];
    }
    if (whole && (whole.code === ErrorCode.UNKNOWN_MEMBER_ID || whole.code === ErrorCode.FENCED_MEMBER_EPOCH))
      this.hooks.fenced(`ShareAcknowledge answered ${whole.name}`);
    const byKey = new Map((answer.partitions ?? []).map((p) => [`${p.topic}\u0000${p.partition}`, p]));
    const errorOf = (topic: string, partition: number): CohortError | null => {
      if (whole) return whole;
      const p = byKey.get(`${topic}\u0000${partition}`);
      if (!p || p.errorCode === ErrorCode.NONE) return null;
      return new CohortError(p.errorCode, `${topic}-${partition}: ${p.errorMessage ?? 'refused'}`);
    };
    const lockMs = this.hooks.lockMs();
    const lost: Lease[] = [];
    for (const lease of renewed) {
      if (errorOf(lease.topic, lease.partition) === null) this.book.renewed(lease, sentAt, lockMs);
      else lost.push(lease);
    }
    const dropped = this.book.dropLeases(lost);
    if (dropped.length > 0) this.hooks.lost(dropped, 'the coordinator refused to renew the lease');
    const events = acknowledgedEvents(taken, errorOf);
    for (const event of events) this.hooks.acknowledged(event);
    return events;
  }
}

/** One `acknowledged` event per partition of `taken`, with the coordinator's verdict. */
export function acknowledgedEvents(
  taken: PendingAck[],
  errorOf: (topic: string, partition: number) => CohortError | null,
): AcknowledgedEvent[] {
  const byPartition = new Map<string, AcknowledgedEvent>();
  for (const ack of taken) {
    const key = `${ack.topic}\u0000${ack.partition}`;
    let event = byPartition.get(key);
    if (!event)
      byPartition.set(
        key,
        (event = { topic: ack.topic, partition: ack.partition, offsets: [], error: errorOf(ack.topic, ack.partition) }),
      );
    event.offsets.push({
      firstOffset: ack.firstOffset,
      lastOffset: ack.lastOffset,
      type: TYPE_NAMES[ack.type as 0 | 1 | 2 | 3] ?? 'accept',
    });
  }
  for (const event of byPartition.values()) event.offsets.sort((a, b) => a.firstOffset - b.firstOffset);
  return [...byPartition.values()];
}

/** Acknowledgements and renewals of the same partitions in one list, each partition's batches ascending. */
function merge(a: PartitionAcks[], b: PartitionAcks[]): PartitionAcks[] {
  const out = new Map<string, PartitionAcks>();
  for (const entry of [...a, ...b]) {
    const key = `${entry.topic}\u0000${entry.partition}`;
    const existing = out.get(key);
    if (existing) existing.batches.push(...entry.batches);
    else out.set(key, { topic: entry.topic, partition: entry.partition, batches: [...entry.batches] });
  }
  for (const entry of out.values()) entry.batches.sort((x, y) => x.firstOffset - y.firstOffset);
  return [...out.values()];
}
