import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { ConsumerGroupManager } from './consumer-group-manager';
import type { Parked } from './heartbeat-batch.types';

/**
 * The first halves of a group's parked heartbeats will not be written (its target failed): their records
 * are taken back and their runs dropped from the batch's `runs`.
 */
export function takeBack(
  manager: ConsumerGroupManager,
  groupId: string,
  entries: readonly Parked[],
  runs: CoordinatorResult<unknown>[],
): void {
  const writes = entries.flatMap(({ write }) => (write ? [write] : []));
  manager.writes.takeBack(groupId, writes);
  const group = manager.group(groupId);
  for (const { join } of entries) {
    const { memberId } = join.prepared.updated;
    // A member the dropped join would have created: what was remembered for it goes too.
    if (!group?.member(memberId)) manager.progress.access?.forget(groupId, memberId);
  }
  const dropped = new Set(entries.map(({ run }) => run));
  const kept = runs.filter((run) => !dropped.has(run));
  runs.length = 0;
  runs.push(...kept);
}
