import { ErrorCode } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import type { Timers } from '../runtime/timers';

/**
 * The member's own copy of its session (self-fencing). The coordinator expires a member `session
 * timeout` after the last heartbeat it *received*; the member counts the same timeout from the *send*
 * time of its last heartbeat that was answered, which is earlier, so it gives its partitions up (as
 * `lost`) before the coordinator can have handed them to anyone else — even when it cannot reach any
 * node to be told so. Kafka's consumer goes as far as forgetting the coordinator when its session
 * timer runs out (AbstractCoordinator's heartbeat thread); losing the partitions then is what its
 * poll timer does (`maybeLeaveGroup`), applied to the session.
 *
 * The fence falls `marginMs` before the session ends (a tenth of it, at most 1 s): timers fire late
 * under load and in throttled tabs, and the margin keeps the member first anyway. `check()` compares
 * wall time with the deadline, so a caller that asks (markProcessed, a commit, a ping from the server)
 * is refused from the deadline on even when the timer has not fired yet.
 *
 * While a JoinGroup is out the clock is held: the coordinator keeps a member whose JoinGroup it holds
 * (Kafka's awaitingJoin), however long the rebalance takes. A JoinGroup that comes back joined restarts
 * the clock (the coordinator restarted the session as it answered); one that fails counts from when it
 * was sent — the last moment the coordinator is known to have held the member.
 *
 * From the moment it falls until the member holds a new assignment, `refuse` throws SESSION_EXPIRED:
 * what the application marks or commits then is about partitions that may be someone else's.
 */
export class SessionFence {
  readonly marginMs: number;
  /** The latest moment the coordinator certainly had the member alive; null while disarmed. */
  private provenAt: number | null = null;
  /** When the JoinGroup being waited for went out; null when none is out. */
  private heldSince: number | null = null;
  private timer: unknown = null;
  /** When the fence fell, until `renewed()`. */
  private expiredAt: number | null = null;

  constructor(
    private readonly timers: Timers,
    private readonly sessionTimeoutMs: number,
    private readonly onExpired: () => void,
  ) {
    this.marginMs = Math.min(1000, Math.floor(sessionTimeoutMs / 10));
  }

  /** When the member fences itself, if nothing proves it alive before; null when disarmed or held. */
  get deadline(): number | null {
    if (this.provenAt === null || this.heldSince !== null) return null;
    return this.provenAt + this.sessionTimeoutMs - this.marginMs;
  }

  /** The coordinator had the member alive at `at` (a heartbeat sent then was answered; a JoinGroup answered then). */
  alive(at: number): void {
    this.provenAt = this.provenAt === null ? at : Math.max(this.provenAt, at);
    this.schedule();
  }

  /** A JoinGroup goes out now: the coordinator keeps the member while it holds it. */
  hold(): void {
    if (this.provenAt === null) return;
    this.heldSince ??= this.timers.now();
    this.cancel();
  }

  /** The JoinGroup came back joined: the coordinator restarted the session as it answered (Kafka's resetTimeouts). */
  joined(): void {
    this.heldSince = null;
    this.alive(this.timers.now());
  }

  /** The JoinGroup failed: the clock runs again, from when it was sent. */
  release(): void {
    if (this.heldSince === null) return;
    const sentAt = this.heldSince;
    this.heldSince = null;
    this.alive(sentAt);
  }

  /** No membership to guard (before a join, after a reset, on stop). */
  disarm(): void {
    this.provenAt = null;
    this.heldSince = null;
    this.cancel();
  }

  /** Fences now if the deadline has passed (the timer may be late); true when it did. */
  check(): boolean {
    const deadline = this.deadline;
    if (deadline === null || this.timers.now() < deadline) return false;
    this.disarm();
    this.expiredAt = this.timers.now();
    this.onExpired();
    return true;
  }

  /** Throws SESSION_EXPIRED for `what` if the fence has fallen (checking the deadline first) and no assignment has been held since. */
  refuse(what: string): void {
    this.check();
    if (this.expiredAt === null) return;
    throw new CohortError(
      ErrorCode.UNKNOWN_MEMBER_ID,
      `${what}: no heartbeat was answered for the session timeout (${this.sessionTimeoutMs} ms), so the member's partitions were reported lost and may belong to another member; it owns nothing until it has joined again`,
      { name: 'SESSION_EXPIRED', retriable: false },
    );
  }

  /** The member holds a new assignment: marks and commits are its own again. */
  renewed(): void {
    this.expiredAt = null;
  }

  private schedule(): void {
    this.cancel();
    const deadline = this.deadline;
    if (deadline === null) return;
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = null;
        // A timer may fire a hair early by the wall clock: then wait again.
        if (!this.check()) this.schedule();
      },
      Math.max(0, deadline - this.timers.now()),
    );
  }

  private cancel(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
