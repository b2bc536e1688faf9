import { ConsumerGroupError, heartbeatErrorResponse } from './consumer-errors';
import type { ConsumerGroupHeartbeatResponse } from './consumer-heartbeat.types';
import type { BatchAnswer } from './heartbeat-batch.types';

/**
 * The answers of one batch's heartbeats (heartbeat-batch.ts), by index: each heartbeat is answered
 * once, and the caller takes the indexes answered since it last looked and hands their answers out.
 */
export class BatchAnswers {
  readonly byIndex: BatchAnswer[] = [];
  /** The indexes answered since the caller last emptied it. */
  readonly fresh: number[] = [];
  /** 1 for each heartbeat answered (its answer may since have been handed out). */
  private readonly given: Uint8Array;

  constructor(
    size: number,
    private readonly onBug: (error: unknown) => void,
  ) {
    this.given = new Uint8Array(size);
  }

  give(index: number, answer: BatchAnswer): void {
    this.byIndex[index] = answer;
    this.given[index] = 1;
    this.fresh.push(index);
  }

  /**
   * Heartbeat `index`'s answer, which is then forgotten: an answer on its way out need not live until
   * the batch's last member is answered, turns later (in a burst, long enough to be copied out of the
   * young generation by every scavenge meanwhile).
   */
  handOut(index: number): BatchAnswer {
    const answer = this.byIndex[index];
    delete this.byIndex[index];
    return answer;
  }

  /** Answers every heartbeat not answered yet with `response`. */
  giveAllLeft(response: ConsumerGroupHeartbeatResponse): void {
    for (let index = 0; index < this.given.length; index++)
      if (this.given[index] === 0) this.give(index, { response, waits: false });
  }

  /** Answers heartbeat `index` with `error` (UNKNOWN_SERVER_ERROR for a bug, which is logged unless `reported`). */
  fail(index: number, error: unknown, reported = false): void {
    if (!(error instanceof ConsumerGroupError)) {
      if (!reported) this.onBug(error);
      error = new ConsumerGroupError(
        'UNKNOWN_SERVER_ERROR',
        `internal error: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    this.give(index, { response: heartbeatErrorResponse(error as ConsumerGroupError), waits: false });
  }
}
