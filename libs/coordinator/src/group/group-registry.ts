import type { Clock } from '@cohort/replication';
import { ClassicGroup } from './classic-group';

/**
 * The groups of one shard (Kafka's `GroupMetadataManager.groups`), and the questions every part of the
 * shard asks about them. Kept apart from the shard so that the rebalance, offset and retention code get
 * the groups and nothing else of the shard.
 */
export class GroupRegistry {
  private readonly groups = new Map<string, ClassicGroup>();
  /** False until the partition is loaded and again once it is closed: then no group is live. */
  serving = false;

  constructor(
    private readonly clock: Clock,
    private readonly historySize: number,
    private readonly onRemoved: (groupId: string) => void = () => {},
  ) {}

  get(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  values(): IterableIterator<ClassicGroup> {
    return this.groups.values();
  }

  /** A snapshot of the groups, for loops that may remove some. */
  list(): ClassicGroup[] {
    return [...this.groups.values()];
  }

  /** Whether `group` is still the live object for its id (timers and completions may hold an old one). */
  owns(group: ClassicGroup): boolean {
    return this.serving && this.groups.get(group.groupId) === group && !group.is('Dead');
  }

  create(groupId: string): ClassicGroup {
    const group = new ClassicGroup(groupId, 'Empty', this.clock.now(), this.historySize);
    this.groups.set(groupId, group);
    return group;
  }

  /** Groups brought back by a load. */
  install(groups: ClassicGroup[]): void {
    for (const group of groups) this.groups.set(group.groupId, group);
  }

  /**
   * Forgets a group that a failed request created and that holds nothing: no members, no pending ids,
   * no offsets, never persisted (Kafka leaves it for the next purge; this keeps the cache clean at once).
   */
  dropIfUnused(group: ClassicGroup): void {
    if (
      group.is('Empty') &&
      group.size === 0 &&
      group.numPending === 0 &&
      !group.offsets.hasOffsets &&
      group.generationId === 0
    ) {
      this.markDead(group);
    }
  }

  /** Empty → Dead: the group is removed from this shard. */
  markDead(group: ClassicGroup): void {
    group.transitionTo('Dead', this.clock.now());
    if (this.groups.get(group.groupId) !== group) return;
    this.groups.delete(group.groupId);
    this.onRemoved(group.groupId);
  }

  clear(): void {
    this.groups.clear();
  }
}
