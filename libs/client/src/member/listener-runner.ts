import { ErrorCode } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import type { Emitter } from '../runtime/emitter';
import type { Timers } from '../runtime/timers';
import type { MemberEvents } from './member-events';

/**
 * Runs the rebalance listeners (`assigned`, `revoked`, `lost`) the way Kafka's consumer runs its
 * ConsumerRebalanceListener: awaited, one after another, each failure reported without stopping the
 * rebalance; and, unlike a blocked `poll()`, never for longer than the rebalance timeout, after which
 * the coordinator would have moved on without the member anyway.
 */
export class ListenerRunner {
  /** The listener phase in progress (resolved when none): `stop()` lets it finish first. */
  busy: Promise<void> = Promise.resolve();

  constructor(
    private readonly events: Emitter<MemberEvents>,
    private readonly timers: Timers,
    private readonly limitMs: number,
    private readonly report: (error: CohortError) => void,
  ) {}

  async run<K extends 'assigned' | 'revoked' | 'lost'>(event: K, payload: MemberEvents[K]): Promise<void> {
    let timer: unknown = null;
    const timedOut = new Promise<'timeout'>(
      (resolve) => (timer = this.timers.setTimeout(() => resolve('timeout'), this.limitMs)),
    );
    const listeners = this.events.emitAndWait(event, payload);
    this.busy = listeners;
    const outcome = await Promise.race([listeners.then(() => 'done' as const), timedOut]);
    this.timers.clearTimeout(timer);
    if (outcome === 'timeout') {
      this.report(
        new CohortError(
          ErrorCode.REQUEST_TIMED_OUT,
          `the '${event}' listeners did not finish within rebalanceTimeoutMs (${this.limitMs} ms); the member went on without them`,
          {
            name: 'LISTENER_TIMEOUT',
            retriable: false,
          },
        ),
      );
    }
  }

  /** A listener (or an assignor's onAssignment) threw. */
  failed(event: string, error: unknown): void {
    if (event === 'error') return; // an error listener that throws must not loop
    const message = error instanceof Error ? error.message : String(error);
    this.report(
      new CohortError(-1, `a '${event}' listener threw: ${message}`, {
        name: 'LISTENER_FAILED',
        retriable: false,
        cause: error,
      }),
    );
  }
}
