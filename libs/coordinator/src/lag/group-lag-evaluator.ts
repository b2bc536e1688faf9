import type { GroupLag, LagSample, LagStatus, PartitionLag } from '@cohort/protocol';
import type { GroupLagSummary } from '../ports/group-lag-summary';
import type { ClassicGroup } from '../group/classic-group';
import type { TopicRegistry } from '../ports/topic-registry.port';
import { evaluatePartition, worstStatus } from './burrow-rules';
import type { LagWindowEntry } from '../group/lag-window';

export type { GroupLagSummary } from '../ports/group-lag-summary';

/**
 * Evaluates a group's lag (docs/lag.md): per committed partition, the lag against the latest reported
 * end offset and Burrow's status over the partition's window of commits; the group is as bad as its
 * worst partition. A partition without a window yet (this coordinator loaded the group and has seen no
 * commit since) is judged on its last commit alone.
 */
export class GroupLagEvaluator {
  constructor(private readonly topics: Pick<TopicRegistry, 'partitionOffsets' | 'endOffsetsOf' | 'timeLagMs'>) {}

  describe(group: ClassicGroup, now: number): GroupLag {
    const partitions: PartitionLag[] = [];
    for (const { topic, partition, value } of group.offsets.all()) {
      const { logEndOffset, lag, timeLagMs, status, window, reportedAt } = this.partition(
        group,
        topic,
        partition,
        value.offset,
        value.commitTimestamp,
        now,
      );
      partitions.push({
        topic,
        partition,
        committedOffset: value.offset,
        logEndOffset,
        lag,
        timeLagMs,
        status,
        history: history(window, value.offset, logEndOffset, lag, reportedAt),
      });
    }
    return groupLagOf(group.groupId, partitions);
  }

  summarize(group: ClassicGroup, now: number, withPartitions: boolean): GroupLagSummary {
    const topicLag = new Map<string, number>();
    const topicTimeLagMs = new Map<string, number>();
    const partitions: { topic: string; partition: number; lag: number; timeLagMs: number | null }[] = [];
    const statuses: LagStatus[] = [];
    let totalLag: number | null = null;
    let maxLag: number | null = null;
    group.offsets.forEachCommitted((topic, partition, offset, commitTimestamp) => {
      const { lag, timeLagMs, status } = this.partition(group, topic, partition, offset, commitTimestamp, now);
      statuses.push(status);
      if (lag === null) return;
      topicLag.set(topic, (topicLag.get(topic) ?? 0) + lag);
      if (timeLagMs !== null) topicTimeLagMs.set(topic, Math.max(topicTimeLagMs.get(topic) ?? 0, timeLagMs));
      totalLag = (totalLag ?? 0) + lag;
      maxLag = Math.max(maxLag ?? 0, lag);
      if (withPartitions) partitions.push({ topic, partition, lag, timeLagMs });
    });
    return {
      groupId: group.groupId,
      status: worstStatus(statuses),
      totalLag,
      maxLag,
      topicLag,
      topicTimeLagMs,
      ...(withPartitions ? { partitions } : {}),
    };
  }

  /**
   * The group's summed lag alone: ranks every group before the largest are evaluated. `ends` caches
   * each topic's end offsets for the whole scan (a few topics, read once each, nothing copied).
   */
  totalLag(group: ClassicGroup, ends: Map<string, Readonly<Record<number, number>> | undefined>): number {
    let total = 0;
    group.offsets.forEachCommitted((topic, partition, offset) => {
      let topicEnds = ends.get(topic);
      if (topicEnds === undefined && !ends.has(topic)) ends.set(topic, (topicEnds = this.topics.endOffsetsOf(topic)));
      const end = topicEnds?.[partition];
      if (end !== undefined && end > offset) total += end - offset;
    });
    return total;
  }

  private partition(
    group: ClassicGroup,
    topic: string,
    partition: number,
    committed: number,
    commitTimestamp: number,
    now: number,
  ) {
    const reported = this.topics.partitionOffsets(topic, partition);
    const logEndOffset = reported?.endOffset ?? null;
    const lag = logEndOffset === null ? null : Math.max(0, logEndOffset - committed);
    // Known exactly when the lag is (the index ends with the latest report); 0 when the lag is.
    const timeLagMs =
      lag === null ? null : lag === 0 ? 0 : (this.topics.timeLagMs(topic, partition, committed, now) ?? null);
    const kept = group.lagWindows.entries(topic, partition);
    const window: readonly LagWindowEntry[] =
      kept.length > 0 ? kept : [{ timestamp: commitTimestamp, offset: committed, logEndOffset, lag }];
    const status: LagStatus =
      lag === null
        ? 'UNKNOWN'
        : evaluatePartition(
            window.every((entry) => entry.lag !== null) ? window : window.filter((entry) => entry.lag !== null),
            lag,
            now,
          );
    return { logEndOffset, lag, timeLagMs, status, window, reportedAt: reported?.reportedAt ?? null };
  }
}

/** The window as samples, plus the latest report when it came after the last commit (the lag as it is now). */
function history(
  window: readonly LagWindowEntry[],
  committed: number,
  logEndOffset: number | null,
  lag: number | null,
  reportedAt: number | null,
): LagSample[] {
  const samples: LagSample[] = window.map((e) => ({
    timestamp: e.timestamp,
    committedOffset: e.offset,
    logEndOffset: e.logEndOffset,
    lag: e.lag,
  }));
  const last = window[window.length - 1];
  if (reportedAt !== null && (!last || reportedAt > last.timestamp))
    samples.push({ timestamp: reportedAt, committedOffset: committed, logEndOffset, lag });
  return samples;
}

/**
 * A group's lag over some of its partitions (those a caller may see): the status is the worst of them
 * and the totals are theirs, as if the other partitions did not exist.
 */
export function groupLagOf(groupId: string, partitions: PartitionLag[]): GroupLag {
  return { groupId, status: worstStatus(partitions.map((p) => p.status)), ...lagTotals(partitions), partitions };
}

/**
 * Sum and maxima over the partitions whose lag is known; each null when none is (no end offset was
 * reported), never a zero that would read as "caught up".
 */
export function lagTotals(partitions: readonly { lag: number | null; timeLagMs: number | null }[]): {
  totalLag: number | null;
  maxLag: number | null;
  maxTimeLagMs: number | null;
} {
  let totalLag: number | null = null;
  let maxLag: number | null = null;
  let maxTimeLagMs: number | null = null;
  for (const { lag, timeLagMs } of partitions) {
    if (lag !== null) {
      totalLag = (totalLag ?? 0) + lag;
      maxLag = Math.max(maxLag ?? 0, lag);
    }
    if (timeLagMs !== null) maxTimeLagMs = Math.max(maxTimeLagMs ?? 0, timeLagMs);
  }
  return { totalLag, maxLag, maxTimeLagMs };
}
