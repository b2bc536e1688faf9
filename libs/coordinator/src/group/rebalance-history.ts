import type { RebalanceView } from '../api/group-coordinator.api';

/**
 * The last rebalances of a group, for operators (SPEC §4 `GET /v1/groups/:groupId/rebalances`). Kept in
 * memory only: a coordinator that takes over a partition starts with an empty history.
 */
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
    this.entries.push({ generationId, reason, startedAt: at, completedAt: null, durationMs: null, members, protocol: null });
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

  /** Newest first. */
  list(): RebalanceView[] {
    return this.entries.map((e) => ({ ...e })).reverse();
  }
}
