import type { Clock, TimerHandle } from '@cohort/replication';
import type { TimerOp } from './timer-op';

/**
 * Every timer of one shard, keyed like Kafka's purgatory keys (MemberKey, GroupJoinKey, GroupSyncKey),
 * so that arming a key replaces its previous timer and closing the shard cancels them all. Time only
 * comes from the injected Clock, so tests and the simulator run these under virtual time.
 *
 * Handlers do not call this class: they return `TimerOp`s in their result and the shard applies them
 * here (`apply`). A firing runs through `onFire`, the shard's step, so the effects of the callback are
 * applied the same way.
 */
/** One armed key: the clock's timer calls whatever `run` is when it fires, so re-arming can keep the timer. */
interface Armed {
  handle: TimerHandle;
  run: () => void;
}

export class ShardTimers {
  private readonly armed = new Map<string, Armed>();

  constructor(
    private readonly clock: Clock,
    private readonly onFire: (fn: () => void) => void = (fn) => fn(),
  ) {}

  /** Applies a result's timer operations, in order. */
  apply(ops: readonly TimerOp[]): void {
    for (const op of ops) {
      if (op.op === 'schedule') this.set(op.key, op.delayMs, op.run);
      else this.cancel(op.key);
    }
  }

  /**
   * Arms `key` to run `fn` after `delayMs`, replacing whatever `key` was armed with. A key still armed
   * (a member's session, re-armed by each of its heartbeats) moves its timer in place when the clock
   * can (`TimerHandle.reschedule`: the same instant and order as a new timer, without one).
   */
  set(key: string, delayMs: number, fn: () => void): void {
    const current = this.armed.get(key);
    if (current?.handle.reschedule) {
      current.run = fn;
      current.handle.reschedule(delayMs);
      return;
    }
    this.cancel(key);
    const armed: Armed = { handle: NOT_YET_ARMED, run: fn };
    armed.handle = this.clock.schedule(delayMs, () => {
      if (this.armed.get(key) !== armed) return;
      this.armed.delete(key);
      this.onFire(armed.run);
    });
    this.armed.set(key, armed);
  }

  cancel(key: string): void {
    const armed = this.armed.get(key);
    if (!armed) return;
    this.armed.delete(key);
    armed.handle.cancel();
  }

  has(key: string): boolean {
    return this.armed.has(key);
  }

  get size(): number {
    return this.armed.size;
  }

  cancelAll(): void {
    for (const armed of this.armed.values()) armed.handle.cancel();
    this.armed.clear();
  }
}

const NOT_YET_ARMED: TimerHandle = { cancel: () => undefined };

/** A member's session (or KIP-394 pending-id) expiry. */
export const heartbeatKey = (groupId: string, memberId: string): string => `heartbeat\u0000${groupId}\u0000${memberId}`;
/** A member's removal after its connection closed (MEMBER_DISCONNECT_GRACE_MS). */
export const disconnectKey = (groupId: string, memberId: string): string =>
  `disconnect\u0000${groupId}\u0000${memberId}`;
/** DelayedJoin / InitialDelayedJoin of a group. */
export const joinKey = (groupId: string): string => `join\u0000${groupId}`;
/** DelayedSync of a group. */
export const syncKey = (groupId: string): string => `sync\u0000${groupId}`;
/** The shard's periodic offset-retention task. */
export const RETENTION_KEY = 'retention';
/** A retry of a partition load whose read failed. */
export const LOAD_RETRY_KEY = 'load-retry';
