import { ErrorCode } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import { sleep, type WakeSignal } from '../runtime/wake-signal';
import type { LeaseBook } from './lease-book';
import { acknowledgedEvents } from './lease-keeper';
import type { ShareCalls } from './share-calls';
import type { AcknowledgedEvent, Lease } from './share-events';
import type { ResolvedShareOptions } from './share-options';

export interface AcquirerHooks {
  memberId(): string;
  acknowledged(event: AcknowledgedEvent): void;
  /** The member's partitions are not what the coordinator thinks: heartbeat now (the whole request). */
  assignmentStale(): void;
  fenced(reason: string): void;
  crash(error: CohortError): void;
  report(error: CohortError): void;
  /** Leases were taken into the book: the keeper's timer may need to move. */
  changed(): void;
}

/**
 * One ShareAcquire at a time: takes the pending acknowledgements along (Kafka's piggy-backed acks on
 * ShareFetch), may be held by the coordinator up to `maxWaitMs` while nothing is leasable, and puts
 * what it was granted into the LeaseBook. Failures are ridden out with back-off; acknowledgements of a
 * request that got no answer go again with the next one.
 */
export class ShareAcquirer {
  /** The lock duration of the last answer (the coordinator's `acquisitionLockTimeoutMs`). */
  lockMs = 30_000;
  private inFlight = false;
  private readonly backoff: Backoff;

  constructor(
    private readonly options: ResolvedShareOptions,
    private readonly book: LeaseBook,
    private readonly calls: ShareCalls,
    private readonly timers: Timers,
    retry: ResolvedRetry,
    private readonly wake: WakeSignal,
    private readonly hooks: AcquirerHooks,
  ) {
    this.backoff = new Backoff(retry, timers);
  }

  get acquiring(): boolean {
    return this.inFlight;
  }

  /** One ShareAcquire; resolves with the leases granted (none after a failure, once its back-off has passed). */
  async acquire(): Promise<Lease[]> {
    const o = this.options;
    const { acks, taken } = this.book.takePending();
    const sentAt = this.timers.now();
    this.inFlight = true;
    let answer;
    try {
      answer = await this.calls.request(
        'ShareAcquire',
        {
          groupId: o.groupId,
          memberId: this.hooks.memberId(),
          maxRecords: o.maxRecords,
          batchSize: o.batchSize,
          maxWaitMs: o.maxWaitMs,
          ...(acks.length > 0 ? { acknowledgements: acks } : {}),
        },
        o.maxWaitMs + o.requestTimeoutMs,
      );
    } catch (error) {
      this.book.requeue(taken);
      return this.retryLater(CohortError.from(error));
    } finally {
      this.inFlight = false;
    }
    if (answer.errorCode !== ErrorCode.NONE) {
      const error = CohortError.fromResponse(answer as never);
      if (error.code === ErrorCode.UNKNOWN_MEMBER_ID || error.code === ErrorCode.FENCED_MEMBER_EPOCH) {
        for (const event of acknowledgedEvents(taken, () => error)) this.hooks.acknowledged(event);
        this.hooks.fenced(`ShareAcquire answered ${error.name}`);
        return [];
      }
      if (!error.retriable) {
        this.hooks.crash(error);
        return [];
      }
      this.book.requeue(taken); // nothing of the request was applied
      return this.retryLater(error);
    }
    this.backoff.reset();
    if (Number.isInteger(answer.acquisitionLockTimeoutMs) && answer.acquisitionLockTimeoutMs > 0)
      this.lockMs = answer.acquisitionLockTimeoutMs;
    return this.take(answer.partitions ?? [], taken, sentAt);
  }

  private take(
    partitions: {
      topic: string;
      partition: number;
      errorCode: number;
      errorMessage?: string;
      acknowledgeErrorCode?: number;
      acknowledgeErrorMessage?: string;
      leases?: { firstOffset: number; lastOffset: number; deliveryCount: number }[];
    }[],
    taken: Parameters<typeof acknowledgedEvents>[0],
    sentAt: number,
  ): Lease[] {
    const byKey = new Map(partitions.map((p) => [`${p.topic}\u0000${p.partition}`, p]));
    const ackError = (topic: string, partition: number): CohortError | null => {
      const p = byKey.get(`${topic}\u0000${partition}`);
      const code = p?.acknowledgeErrorCode ?? ErrorCode.NONE;
      if (code === ErrorCode.NONE) return null;
      return new CohortError(code, `${topic}-${partition}: ${p?.acknowledgeErrorMessage ?? 'acknowledgement refused'}`);
    };
    for (const event of acknowledgedEvents(taken, ackError)) this.hooks.acknowledged(event);
    const leases: Lease[] = [];
    for (const p of partitions) {
      if (p.errorCode !== ErrorCode.NONE) {
        const why = p.errorMessage === undefined ? '' : `: ${p.errorMessage}`;
        const error = new CohortError(p.errorCode, `ShareAcquire of ${p.topic}-${p.partition} refused${why}`);
        if (error.code === ErrorCode.UNKNOWN_TOPIC_OR_PARTITION) this.hooks.assignmentStale();
        this.hooks.report(error);
        continue;
      }
      for (const wire of p.leases ?? []) leases.push(this.book.add(p.topic, p.partition, wire, sentAt, this.lockMs));
    }
    if (leases.length > 0) this.hooks.changed();
    return leases;
  }

  private async retryLater(error: CohortError): Promise<Lease[]> {
    this.hooks.report(error);
    await sleep(this.timers, this.backoff.next(), this.wake);
    return [];
  }
}
