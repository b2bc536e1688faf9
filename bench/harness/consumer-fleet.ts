import { ConsumerMember, type ConsumerMemberOptions } from './consumer-member';
import { oncePerTurn } from './once-per-turn';
import { ms } from './stats';

/**
 * The consumer-protocol members of one group, all in this process (bench/consumer-groups.bench.ts),
 * and the moment they converge: every member at the same epoch and, together, owning every partition
 * of the topic — then each owns exactly its target (a member at the target's epoch owns a subset of its
 * target, and the targets are disjoint). A member whose target did not change is not told (Kafka writes
 * no record for it) and moves to the new epoch only at its next heartbeat, so the time until every
 * member holds its new target is read afterwards: the last moment a member's partitions changed.
 */
export interface Convergence {
  /** From the triggering action until the last member's partitions changed to its new target. */
  heldMs: number;
  /** From the triggering action until every member was at the new epoch (unchanged members learn it on their interval). */
  epochMs: number;
}

export class ConsumerFleet {
  readonly members: ConsumerMember[] = [];
  private check: () => void = () => undefined;
  private readonly scheduleCheck = oncePerTurn(() => this.check());

  constructor(
    private readonly url: string,
    readonly groupId: string,
    private readonly options: ConsumerMemberOptions,
  ) {}

  /** Connects `count` more members (not started), a few hundred sockets at a time. */
  async connect(count: number): Promise<ConsumerMember[]> {
    const added: ConsumerMember[] = [];
    for (let i = 0; i < count; i += 200) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(200, count - i) }, () =>
          ConsumerMember.connect(this.url, this.groupId, this.options),
        ),
      );
      for (const member of batch) member.onChange = this.scheduleCheck;
      added.push(...batch);
    }
    this.members.push(...added);
    return added;
  }

  /**
   * Waits until every member holds its target with `partitions` partitions owned in all, at one epoch
   * above `afterEpoch`; `act` is what triggers the change (called once the wait has begun). Rejects
   * after `timeoutMs` saying how far the members got.
   */
  async converge(partitions: number, afterEpoch: number, timeoutMs: number, act: () => unknown): Promise<Convergence> {
    const started = performance.now();
    const done = new Promise<Convergence>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.check = () => undefined;
        reject(new Error(`members did not converge within ${ms(timeoutMs)}: ${this.progress(partitions)}`));
      }, timeoutMs);
      this.check = () => {
        if (!this.converged(partitions, afterEpoch)) return;
        clearTimeout(timer);
        this.check = () => undefined;
        const lastChange = Math.max(started, ...this.members.map((m) => m.ownedChangedAt));
        resolve({ heldMs: lastChange - started, epochMs: performance.now() - started });
      };
    });
    await act();
    this.scheduleCheck();
    return done;
  }

  /** The epoch every member is at (after a convergence). */
  epoch(): number {
    return Math.max(0, ...this.members.map((m) => m.epoch));
  }

  /** Heartbeats and pushes per member so far (mean and most), as one short phrase. */
  roundTrips(): string {
    const n = Math.max(1, this.members.length);
    const heartbeats = this.members.map((m) => m.heartbeats);
    const pushes = this.members.map((m) => m.pushes);
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return (
      `heartbeats per member ${(sum(heartbeats) / n).toFixed(1)} (most ${Math.max(0, ...heartbeats)}), ` +
      `HeartbeatNow per member ${(sum(pushes) / n).toFixed(1)} (most ${Math.max(0, ...pushes)})`
    );
  }

  /** Members' error codes and timeouts, summed, as one short phrase. */
  troubles(): string {
    const errors = new Map<number, number>();
    let timeouts = 0;
    for (const member of this.members) {
      timeouts += member.timeouts;
      for (const [code, n] of member.errors) errors.set(code, (errors.get(code) ?? 0) + n);
    }
    const parts = [...errors].map(([code, n]) => `error ${code}: ${n}`);
    if (timeouts) parts.push(`timeouts: ${timeouts}`);
    return parts.length ? parts.join(', ') : 'no errors or timeouts';
  }

  async leave(): Promise<void> {
    this.check = () => undefined;
    await Promise.all(this.members.map((m) => m.leave()));
  }

  private converged(partitions: number, afterEpoch: number): boolean {
    const epoch = this.members[0]?.epoch ?? 0;
    if (epoch <= afterEpoch) return false;
    let owned = 0;
    for (const member of this.members) {
      if (member.epoch !== epoch) return false;
      owned += member.holds();
    }
    return owned === partitions;
  }

  private progress(partitions: number): string {
    const epochs = this.members.map((m) => m.epoch);
    const owned = this.members.reduce((n, m) => n + m.holds(), 0);
    return `epochs ${Math.min(...epochs)}–${Math.max(...epochs)}, ${owned} of ${partitions} partitions owned; ${this.troubles()}`;
  }
}
