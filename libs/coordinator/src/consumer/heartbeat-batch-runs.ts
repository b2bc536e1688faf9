import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { ConsumerGroupManager } from './consumer-group-manager';
import type { BatchAnswers } from './heartbeat-batch-answers';

/**
 * What a batch's parts recorded (their writes, their timers), each part's as one run, in order: the
 * caller hands them to the runtime between steps. A part that throws answers its heartbeat with the
 * error and records nothing.
 */
export class BatchRuns {
  readonly list: CoordinatorResult<unknown>[] = [];

  constructor(
    private readonly manager: ConsumerGroupManager,
    private readonly answers: BatchAnswers,
  ) {}

  /**
   * Runs one heartbeat's part; its error answers it, and whatever it recorded before failing is dropped.
   * Returns what it recorded (its run), if anything.
   */
  guarded(index: number, part: () => void): CoordinatorResult<unknown> | undefined {
    try {
      part();
      return this.took();
    } catch (error) {
      this.dropped();
      this.answers.fail(index, error);
      return undefined;
    }
  }

  /** What the part recorded joins the runs, in order. */
  took(): CoordinatorResult<unknown> | undefined {
    if (this.manager.effects.isEmpty) return undefined;
    const run = this.manager.effects.take();
    this.list.push(run);
    return run;
  }

  /** What the part recorded is forgotten, nothing of it written. */
  dropped(): void {
    this.manager.effects.discard();
    this.manager.forgetPending();
  }
}
