/**
 * A consumer group's subscriber count per topic name (Kafka's `ModernGroup.subscribedTopicNames`),
 * with a version that moves whenever a count changes and never goes back: what is derived from the
 * subscribed names alone is kept while the version stays, instead of walking every name again (one
 * member may subscribe to 100,000 names, most of them topics that do not exist).
 */
export class SubscribedNameCounts {
  readonly counts = new Map<string, number>();
  /**
   * Not state of the group but a key to what is kept beside it: a write taken back moves it again
   * rather than back, and the group is still equal to what it was (a field of its own, unseen by
   * comparisons of the group).
   */
  #version = 0;

  get version(): number {
    return this.#version;
  }

  /**
   * A member's names `before` replaced by its names `after` (either absent: it joins or leaves). Only
   * the names one has and the other lacks are counted again, so a record that keeps the member's set of
   * names (its assignment, its rack) costs nothing however many it holds, and a changed subscription
   * writes only what changed.
   */
  replace(before: ReadonlySet<string> | undefined, after: ReadonlySet<string> | undefined): void {
    if (before === after) return;
    const dropped = before !== undefined && this.countMissing(before, after, -1);
    const added = after !== undefined && this.countMissing(after, before, 1);
    if (dropped || added) this.#version++;
  }

  /** Each of `names` that `other` lacks counted by `delta`; whether there was any. */
  private countMissing(names: ReadonlySet<string>, other: ReadonlySet<string> | undefined, delta: 1 | -1): boolean {
    const counts = this.counts;
    let any = false;
    for (const name of names) {
      if (other?.has(name)) continue;
      any = true;
      const next = (counts.get(name) ?? 0) + delta;
      if (next <= 0) counts.delete(name);
      else counts.set(name, next);
    }
    return any;
  }
}
