import type { RebalanceView } from '../ports/group-coordinator.api';

/**
 * The last rebalances of a group, for operators (`GET /v1/groups/:groupId/rebalances`). Written with
 * every GroupMetadata record of the group and replayed by the loader, so a coordinator that takes over
 * the partition shows the same history (the entries after the last record written are lost with the
 * old coordinator, as the group's in-flight membership is).
 */
const MAX_PERSISTED_REASON = 300;

export class RebalanceHistory {
  private readonly entries: RebalanceView[] = [];

  constructor(private readonly capacity: number) {}

  /**
   * A rebalance starts. While one is open (the group has not reached Stable or Empty since it left them),
   * a new trigger continues it: operators care how long the group was without a stable assignment.
   * `generationId` is the generation it starts from until it completes, then the one it produced.
   */
  started(generationId: number, reason: string, at: number, members: number): void {
    const last = this.entries[this.entries.length - 1];
    if (last && last.completedAt === null) return;
    this.entries.push({
      generationId,
      reason,
      startedAt: at,
      completedAt: null,
      durationMs: null,
      members,
      protocol: null,
    });
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
  }

  /** The open rebalance completed; returns its duration, or undefined when none was open. */
  completed(generationId: number, at: number, members: number, protocol: string | null): number | undefined {
    const last = this.entries[this.entries.length - 1];
    if (!last || last.completedAt !== null) return undefined;
    last.generationId = generationId;
    last.completedAt = at;
    last.durationMs = at - last.startedAt;
    last.members = members;
    last.protocol = protocol;
    return last.durationMs;
  }

  /**
   * What a GroupMetadata record written now carries: the entries oldest first, the open one (if any)
   * completed at `at` with the generation the record stores.
   */
  persisted(generationId: number, at: number, members: number, protocol: string | null): RebalanceView[] {
    return this.entries.map((e) => {
      // A reason naming every member of a large group would make each record of the group large.
      const reason =
        e.reason.length > MAX_PERSISTED_REASON ? `${e.reason.slice(0, MAX_PERSISTED_REASON - 1)}…` : e.reason;
      return e.completedAt !== null
        ? { ...e, reason }
        : { ...e, reason, generationId, completedAt: at, durationMs: at - e.startedAt, members, protocol };
    });
  }

  /** A replayed group's history, as its last record stored it (oldest first). */
  restore(entries: readonly RebalanceView[]): void {
    this.entries.splice(0, this.entries.length, ...entries.slice(-this.capacity).map((e) => ({ ...e })));
  }

  /** Newest first. */
  list(): RebalanceView[] {
    return this.entries.map((e) => ({ ...e })).reverse();
  }
}
