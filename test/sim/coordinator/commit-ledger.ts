/** A partition of a group's offsets: a number for the classic groups' one topic, `topic-p` for consumer groups. */
export type PartitionKey = number | string;

/**
 * What clients were told: every offset commit attempted and acknowledged, and every SyncGroup
 * acknowledged — the truth a coordinator must never contradict after a failover.
 */
export class CommitLedger {
  private readonly attempted = new Map<string, Set<number>>();
  private readonly maxAcked = new Map<string, number>();
  private readonly syncs = new Map<string, { generation: number; assignment: string }>();
  readonly violations: string[] = [];
  ackedCommits = 0;
  loadInProgressAnswers = 0;
  notCoordinatorAnswers = 0;

  attempt(group: string, partition: PartitionKey, offset: number): void {
    const k = `${group}/${partition}`;
    let set = this.attempted.get(k);
    if (!set) this.attempted.set(k, (set = new Set()));
    set.add(offset);
  }

  acked(group: string, partition: PartitionKey, offset: number): void {
    const k = `${group}/${partition}`;
    this.ackedCommits++;
    this.maxAcked.set(k, Math.max(this.maxAcked.get(k) ?? -1, offset));
  }

  syncAcked(group: string, generation: number, assignment: unknown): void {
    this.syncs.set(group, { generation, assignment: JSON.stringify(assignment) });
  }

  /** Whether a SyncGroup of `group` has been acknowledged (after which the group must always exist). */
  hasAckedSync(group: string): boolean {
    return this.syncs.has(group);
  }

  /** The highest acknowledged offset now (for a check whose answer comes later). */
  snapshot(group: string, partition: PartitionKey): number {
    return this.maxAcked.get(`${group}/${partition}`) ?? -1;
  }

  /** An OffsetFetch answered NONE with `fetched`; `ackedBefore` was the highest ack when it was sent. */
  checkFetched(group: string, partition: PartitionKey, fetched: number, ackedBefore: number, where: string): void {
    const attempted = this.attempted.get(`${group}/${partition}`);
    if (fetched < ackedBefore)
      this.violations.push(`${where}: ${group}/${partition} committed ${fetched} but ${ackedBefore} was acknowledged`);
    if (fetched !== -1 && !attempted?.has(fetched))
      this.violations.push(`${where}: ${group}/${partition} committed ${fetched}, which nobody wrote`);
  }

  /** A group as a coordinator describes it: an acknowledged assignment must still be there. */
  checkGroup(group: string, generation: number, assignments: unknown[], where: string): void {
    const acked = this.syncs.get(group);
    if (!acked) return;
    if (generation < acked.generation)
      this.violations.push(
        `${where}: ${group} is at generation ${generation} but SyncGroup of ${acked.generation} was acknowledged`,
      );
    if (generation === acked.generation && !assignments.some((a) => JSON.stringify(a) === acked.assignment)) {
      this.violations.push(
        `${where}: ${group} generation ${generation} lost its acknowledged assignment ${acked.assignment}`,
      );
    }
  }
}
