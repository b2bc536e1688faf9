import type { TopicPartitions } from '@cohort/protocol';
import { PartitionSet } from '../partition-set';

export interface ReconcilerHooks {
  /** Whether the membership a reconciliation started in is still the member's (not fenced, not leaving). */
  isCurrent(incarnation: number): boolean;
  incarnation(): number;
  /**
   * Gives `partitions` up: the `revoked` listener (awaited), then the commit of what was marked for
   * them. They stay owned (and reported owned) until this resolves.
   */
  revoke(partitions: PartitionSet): Promise<void>;
  /** The `assigned` listener for the partitions just added (they are owned already). */
  assign(partitions: PartitionSet): Promise<void>;
  /** The owned partitions changed: acknowledge them to the coordinator now (Kafka's ACKNOWLEDGING). */
  acknowledge(): void;
  /** No reconciliation runs any more (until the next target). */
  settled(): void;
}

/**
 * Kafka's AbstractMembershipManager reconciliation, for one member: the coordinator hands over a
 * target (the whole assignment); the member revokes what left it first — its listener awaited and its
 * offsets committed — and only then takes what was added, then acknowledges by heartbeating what it
 * owns. One reconciliation runs at a time; a target that arrives meanwhile is reconciled next, after
 * the acknowledgement of the one in progress has gone out. A fenced member's reconciliation stops at
 * its next step (its partitions are reported lost instead).
 */
export class Reconciler {
  private ownedSet = new PartitionSet();
  private target: PartitionSet | null = null;
  private running: Promise<void> | null = null;
  private idleWaiters: (() => void)[] = [];
  /** Set when the member stops: no reconciliation starts any more. */
  private closed = false;

  get owned(): PartitionSet {
    return this.ownedSet;
  }

  /** True when the member owns exactly its latest target (or has none yet). */
  get reconciled(): boolean {
    return this.target === null || this.target.equals(this.ownedSet);
  }

  get busy(): boolean {
    return this.running !== null;
  }

  constructor(private readonly hooks: ReconcilerHooks) {}

  /** A heartbeat answered with an assignment: the new target. */
  setTarget(assignment: readonly TopicPartitions[]): void {
    if (this.closed) return;
    this.target = PartitionSet.of(assignment);
    if (!this.reconciled) this.running ??= this.run().finally(() => this.settled());
  }

  /** The membership is gone (fenced, crashed, stopped): what was owned is returned, nothing is owned any more. */
  abandon(): PartitionSet {
    const owned = this.ownedSet;
    this.ownedSet = new PartitionSet();
    this.target = null;
    return owned;
  }

  /** The member is stopping: the reconciliation in progress ends after its current step, none starts. */
  close(): void {
    this.closed = true;
  }

  /** Resolves once no reconciliation is running. */
  idle(): Promise<void> {
    if (this.running === null) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private async run(): Promise<void> {
    const incarnation = this.hooks.incarnation();
    while (!this.closed && !this.reconciled && this.target !== null && this.hooks.isCurrent(incarnation)) {
      const target = this.target;
      const revoked = this.ownedSet.minus(target);
      if (revoked.size > 0) {
        await this.hooks.revoke(revoked);
        if (!this.hooks.isCurrent(incarnation)) return;
        this.ownedSet = this.ownedSet.minus(revoked);
      }
      // Added is computed after the revocation: the owned set may only have shrunk meanwhile.
      const added = target.minus(this.ownedSet);
      this.ownedSet = this.ownedSet.plus(added);
      await this.hooks.assign(added);
      if (!this.hooks.isCurrent(incarnation)) return;
      this.hooks.acknowledge();
    }
  }

  private settled(): void {
    this.running = null;
    // A target that came while the last step's listener ran, after the loop looked, is reconciled now.
    if (!this.closed && !this.reconciled && this.target !== null) {
      this.running = this.run().finally(() => this.settled());
      return;
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve();
    this.hooks.settled();
  }
}
