import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import type { CoordinatorLink } from './coordinator-link';
import type { GroupCalls } from './group-calls';
import { HeartbeatLoop } from './heartbeat-loop';
import type { Membership } from './membership';
import { heartbeatAction } from './response-actions';
import type { SessionFence } from './session-fence';

export interface MemberHeartbeatHooks {
  isStable(): boolean;
  /** REBALANCE_IN_PROGRESS while stable in the generation the beat was for. */
  rebalancing(): void;
  reset(reason: string, resetMemberId: boolean): void;
  fenced(error: CohortError): void;
  report(error: CohortError): void;
}

/**
 * The member's heartbeat (Kafka's HeartbeatThread): beats on its own timer while the member has a
 * generation, treats REBALANCE_IN_PROGRESS as a live session, ignores answers about a generation the
 * member has left, backs off exponentially after failures, and forgets the coordinator when no beat has
 * succeeded for a whole session (the client-side session timer). Every answered beat moves the
 * session fence on, from the moment that beat was sent.
 */
export class MemberHeartbeat {
  private readonly loop: HeartbeatLoop;
  private readonly backoff: Backoff;
  private lastOk = 0;

  constructor(
    private readonly timers: Timers,
    retry: ResolvedRetry,
    intervalMs: number,
    private readonly sessionTimeoutMs: number,
    private readonly membership: Membership,
    private readonly calls: GroupCalls,
    private readonly link: CoordinatorLink,
    private readonly fence: SessionFence,
    private readonly hooks: MemberHeartbeatHooks,
  ) {
    this.backoff = new Backoff(retry, timers);
    this.loop = new HeartbeatLoop(timers, intervalMs, () => this.beat());
  }

  /** After a JoinGroup answer: beat from now on (no-op when already beating). */
  start(): void {
    if (!this.loop.isRunning) this.lastOk = this.timers.now();
    this.loop.start();
  }

  stop(): void {
    this.loop.stop();
  }

  /** Beat now if one is overdue (a throttled tab got a task); fence first if the session ran out meanwhile. */
  poke(): void {
    this.fence.check();
    this.loop.poke();
  }

  /** Beat as soon as possible (a reconnect, a moved coordinator). */
  now(): void {
    this.loop.now();
  }

  private async beat(): Promise<number | void> {
    const identity = this.membership.identity();
    if (identity.generationId < 0) return;
    if (this.timers.now() - this.lastOk > this.sessionTimeoutMs) this.link.markUnknown();
    const sent: { at: number | null } = { at: null };
    try {
      const action = heartbeatAction(await this.calls.heartbeat(identity, (at) => (sent.at = at)));
      if (action.kind === 'alive') {
        this.lastOk = this.timers.now();
        this.backoff.reset();
        if (sent.at !== null && this.membership.isCurrent(identity)) this.fence.alive(sent.at);
        if (action.rebalancing && this.hooks.isStable() && this.membership.isCurrent(identity))
          this.hooks.rebalancing();
        return;
      }
      if (!this.membership.isCurrent(identity)) return; // an answer about a generation the member has left already
      if (action.kind === 'reset') return this.hooks.reset(action.reason, action.resetMemberId);
      if (action.kind === 'fenced') return this.hooks.fenced(action.error);
      this.hooks.report(action.error);
    } catch (error) {
      this.hooks.report(CohortError.from(error));
    }
    return this.backoff.next();
  }
}
