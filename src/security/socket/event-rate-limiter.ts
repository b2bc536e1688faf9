/**
 * A token bucket per connection: `perSecond` events a second on average, bursts up to the same
 * number. Refilled from the elapsed time at each event, so an idle connection costs no timer.
 */
export class EventRateLimiter {
  private tokens: number;
  private last: number;

  constructor(
    private readonly perSecond: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = perSecond;
    this.last = this.now();
  }

  /** Takes one event's token; false when the connection is over its rate. */
  tryTake(): boolean {
    const now = this.now();
    this.tokens = Math.min(this.perSecond, this.tokens + ((now - this.last) * this.perSecond) / 1000);
    this.last = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }
}
