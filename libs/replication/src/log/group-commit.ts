export interface GroupCommitOptions {
  /**
   * How many syncs may run at once (default 1). Above 1, a caller that asks while syncs are running
   * gets a sync of its own started at once, instead of waiting for the running ones to end first.
   */
  maxInFlight?: number;
  /**
   * Asked before a sync starts while others run: false when the next sync must run alone (it rotates
   * or rewrites a file, say), so it waits until every running sync has ended.
   */
  canOverlap?: () => boolean;
}

interface Waiter {
  resolve: () => void;
  reject: (e: unknown) => void;
}

/** One sync and the callers it answers, in the order the syncs started. */
interface Round {
  waiters: Waiter[];
  outcome: { ok: true } | { ok: false; error: unknown } | undefined;
  /** An earlier round's failure, known while this one ran: this one fails with it. */
  poisoned?: unknown;
}

/**
 * Group commit: every caller that asks before a sync starts shares that sync, so N concurrent callers
 * cost a few syncs instead of N. A caller is answered only by a sync that *started after it asked*: its
 * writes, made before it asked, may have come after a running sync began, so it cannot ride on that one.
 *
 * With `maxInFlight` above 1 the syncs are pipelined: a caller that asks while a sync runs gets its own
 * sync started at once (on the next microtask, so the callers of one synchronous run share it) rather
 * than waiting for the running one to end and then for one more. Why this is sound:
 *
 * - A sync makes durable everything written to the file before the sync was *issued* (fsync and
 *   fdatasync, POSIX), whatever else is running. A caller's sync is issued after the caller asked, so it
 *   covers the caller's writes; the caller's commit point is what was written when its sync started.
 * - Rounds are answered in the order they started, each only once its own sync and every earlier one
 *   have ended, and only if all of them succeeded. A sync that succeeds cannot vouch for writes whose
 *   writeback failed (Linux reports a writeback error to one fsync of a file, maybe another caller's,
 *   and the next one succeeds while those pages never reached the disk), so a failure fails every round
 *   not yet answered, as well as its own; the owner then writes again what they held (`heal`). And no
 *   round is answered while an earlier sync still runs, so no caller closes a file under a sync.
 */
export class GroupCommit {
  private readonly maxInFlight: number;
  private readonly canOverlap: () => boolean;
  /** Rounds started and not yet answered, oldest first. */
  private readonly rounds: Round[] = [];
  private running = 0;
  private waiters: Waiter[] = [];
  private startQueued = false;

  constructor(
    private readonly sync: () => Promise<void>,
    options: GroupCommitOptions = {},
  ) {
    this.maxInFlight = Math.max(1, options.maxInFlight ?? 1);
    this.canOverlap = options.canOverlap ?? (() => true);
  }

  request(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (this.maxInFlight === 1) {
        if (this.running === 0) this.startNext();
      } else if (!this.startQueued && this.mayStart()) {
        // The callers of this synchronous run (every partition a turn appended to) share one sync.
        this.startQueued = true;
        queueMicrotask(() => {
          this.startQueued = false;
          if (this.mayStart()) this.startNext();
        });
      }
    });
  }

  /** Whether a sync is running or waiting to run. */
  get busy(): boolean {
    return this.running > 0 || this.waiters.length > 0;
  }

  private mayStart(): boolean {
    if (this.waiters.length === 0) return false;
    if (this.running === 0) return true;
    return this.running < this.maxInFlight && this.canOverlap();
  }

  private startNext(): void {
    const round: Round = { waiters: this.waiters, outcome: undefined };
    this.waiters = [];
    if (round.waiters.length === 0) return;
    this.rounds.push(round);
    this.running++;
    let syncing: Promise<void>;
    try {
      syncing = this.sync();
    } catch (e) {
      syncing = Promise.reject(e);
    }
    syncing.then(
      () => this.ended(round, { ok: true }),
      (error: unknown) => this.ended(round, { ok: false, error }),
    );
  }

  private ended(round: Round, outcome: NonNullable<Round['outcome']>): void {
    this.running--;
    round.outcome = outcome;
    // Every round not answered yet, earlier or later, ran while this failure happened: a writeback
    // error is reported to one sync only, maybe not to the one whose writes it lost, so they all fail.
    if (!outcome.ok) for (const other of this.rounds) if (other !== round) other.poisoned ??= outcome.error;
    // Answer, oldest first, every round whose own sync and every earlier one have ended.
    while (this.rounds.length > 0 && this.rounds[0].outcome !== undefined) {
      const done = this.rounds.shift()!;
      const failed = done.outcome!.ok ? done.poisoned : done.outcome!.error;
      if (failed === undefined) for (const w of done.waiters) w.resolve();
      else for (const w of done.waiters) w.reject(failed);
    }
    while (this.mayStart()) this.startNext();
  }
}
