/**
 * How many socket writes one event-loop turn makes before the rest wait for a later turn. A write of
 * an answer costs the node 40–60 µs on loopback (the syscall delivers to the receiver too), so 500 keep
 * a turn to a few tens of milliseconds; 100 sockets in a closed loop never reach it.
 */
export const WRITES_PER_TURN = 500;

interface Pending {
  cost: number;
  write: () => void;
}

/**
 * Spreads a burst of socket writes over event-loop turns, in order. When a rebalance of 10,000 members
 * ends, the coordinator answers every parked JoinGroup (or SyncGroup) at once and pushes to every member:
 * written in one turn, that held the loop for over a second, and every other group on the node — a
 * Heartbeat, a commit — waited that long for its answer. Through the pacer, a turn writes up to
 * `perTurn` (weighing a push by its sockets) and the rest go out in the following turns, with I/O polled
 * in between.
 *
 * Writes leave in the order they were asked for: once anything waits, every later write waits behind
 * it. Every socket acknowledgement and every push share one pacer (SocketPushSink's), so a member
 * never gets a push before the answer that was due before it. Outside bursts, a write goes out at once,
 * with no extra hop.
 */
export class WritePacer {
  private used = 0;
  private readonly waiting: (Pending | undefined)[] = [];
  private head = 0;
  private turnScheduled = false;

  constructor(
    readonly perTurn = WRITES_PER_TURN,
    private readonly nextTurn: (fn: () => void) => void = setImmediate,
  ) {}

  /** Writes still waiting for a turn. */
  get backlog(): number {
    return this.waiting.length - this.head;
  }

  /** Runs `write` now when this turn has room and nothing waits; otherwise after everything waiting, in a later turn. */
  write(cost: number, write: () => void): void {
    if (this.admit(cost)) write();
    else this.later(cost, write);
  }

  /**
   * True, with `cost` counted, when a write may go out now (this turn has room and nothing waits); the
   * caller then writes at once. On false it must hand the write to `later`. (The hot path's way of
   * calling `write` without making a closure per answer.)
   */
  admit(cost: number): boolean {
    if (this.head !== this.waiting.length || this.used >= this.perTurn) return false;
    this.spend(cost);
    return true;
  }

  /** Queues `write` behind everything waiting, for a later turn. */
  later(cost: number, write: () => void): void {
    this.waiting.push({ cost, write });
    this.scheduleTurn();
  }

  /**
   * Counts a write against the budget. The fresh budget of a later turn is only scheduled once half of
   * this one is spent: a pending setImmediate makes libuv poll without waiting, so one on every turn of
   * ordinary traffic (a hundred acks) would split the reads the coordinator batches per turn into more,
   * smaller turns. Writes of earlier turns may count against this one until then, so a turn always
   * writes at least half its budget and never more than all of it.
   */
  private spend(cost: number): void {
    this.used += cost;
    if (this.used * 2 >= this.perTurn) this.scheduleTurn();
  }

  /** The next turn starts a fresh budget and writes what waits; scheduled at most once at a time. */
  private scheduleTurn(): void {
    if (this.turnScheduled) return;
    this.turnScheduled = true;
    this.nextTurn(() => this.turn());
  }

  private turn(): void {
    this.turnScheduled = false;
    this.used = 0;
    while (this.head < this.waiting.length && this.used < this.perTurn) {
      const next = this.waiting[this.head]!;
      this.waiting[this.head++] = undefined;
      this.used += next.cost;
      // The next turn is scheduled before the write, so a write that throws cannot strand the ones behind it.
      this.scheduleTurn();
      next.write();
    }
    if (this.head === this.waiting.length) {
      this.waiting.length = 0;
      this.head = 0;
    }
  }
}
