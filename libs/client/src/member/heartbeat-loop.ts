import type { Timers } from '../runtime/timers';

/**
 * The member's heartbeat, on its own timer so it keeps going while listeners and the application
 * run (the Java consumer's heartbeat thread; KafkaJS only heartbeats between messages).
 *
 * Every wait is computed from wall time (`due = last send + interval`), never by counting timer
 * firings: a browser that throttles a hidden tab's timers (1 s alignment, or one wake-up a minute
 * under Chrome's intensive throttling) only makes a heartbeat late, and the late one goes out at
 * once. `poke()` sends an overdue heartbeat right away; the member calls it on network activity and
 * when the page becomes visible again, so a throttled tab heartbeats as soon as it gets a task at all.
 */
export class HeartbeatLoop {
  private timer: unknown = null;
  private running = false;
  private inFlight = false;
  private lastSentAt = 0;
  private nextDelayMs: number | null = null;

  constructor(
    private readonly timers: Timers,
    private intervalMs: number,
    /** Sends one heartbeat; may return a delay (back-off) to use instead of the interval. */
    private readonly beat: () => Promise<number | void>,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  /** Starts beating (the first beat one interval from now); no-op when already running. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.lastSentAt = this.timers.now();
    this.nextDelayMs = null;
    this.schedule();
  }

  stop(): void {
    this.running = false;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }

  /** A new interval from the next beat on (a consumer group's coordinator tells its members theirs). */
  retime(intervalMs: number): void {
    if (intervalMs === this.intervalMs) return;
    this.intervalMs = intervalMs;
    if (this.running && !this.inFlight) this.schedule();
  }

  /** Beat now if the next beat is due (or overdue). */
  poke(): void {
    if (this.running && !this.inFlight && this.timers.now() >= this.dueAt()) this.fire();
  }

  /** Beat as soon as possible, e.g. after a reconnect. */
  now(): void {
    if (!this.running) return;
    this.nextDelayMs = 0;
    if (!this.inFlight) this.fire();
  }

  private dueAt(): number {
    return this.lastSentAt + (this.nextDelayMs ?? this.intervalMs);
  }

  private schedule(): void {
    if (!this.running) return;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = this.timers.setTimeout(
      () => {
        this.timer = null;
        this.fire();
      },
      Math.max(0, this.dueAt() - this.timers.now()),
    );
  }

  private fire(): void {
    if (!this.running || this.inFlight) return;
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
    this.inFlight = true;
    this.lastSentAt = this.timers.now();
    this.nextDelayMs = null;
    this.beat().then(
      (delay) => this.afterBeat(typeof delay === 'number' ? delay : null),
      () => this.afterBeat(null),
    );
  }

  private afterBeat(delay: number | null): void {
    this.inFlight = false;
    if (delay !== null) {
      // A back-off counts from now, not from when the failed beat was sent.
      this.lastSentAt = this.timers.now();
      this.nextDelayMs = delay;
    }
    this.schedule();
  }
}
