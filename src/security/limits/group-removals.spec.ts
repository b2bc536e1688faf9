import type { CoordinatorMetrics } from '@cohort/coordinator';
import { GroupRemovals } from './group-removals';

class CountingMetrics implements CoordinatorMetrics {
  leased = 0;
  removed: string[] = [];
  onShareOffsetsLeased(count: number): void {
    this.leased += count;
  }
  onGroupRemoved(groupId: string): void {
    this.removed.push(groupId);
  }
}

describe('GroupRemovals.relaying', () => {
  it("reports every metric to the metrics object itself, and a group's removal to the listeners too", () => {
    const removals = new GroupRemovals();
    const heard: string[] = [];
    removals.listen((groupId) => heard.push(groupId));
    const metrics = new CountingMetrics();
    const relayed = removals.relaying(metrics);
    // Called detached, as `report.call(...)` or a stored reference would: the method still counts on `metrics`.
    const report = relayed.onShareOffsetsLeased!;
    report(3);
    relayed.onShareOffsetsLeased?.(2);
    relayed.onGroupRemoved?.('g1');
    expect(metrics.leased).toBe(5);
    expect(metrics.removed).toEqual(['g1']);
    expect(heard).toEqual(['g1']);
    expect(relayed.onRebalanceStarted).toBeUndefined();
  });
});
