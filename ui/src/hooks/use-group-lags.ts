import { useEffect, useState } from 'preact/hooks';
import { api, groupPath } from '../api/api';
import type { GroupLag, LagStatus } from '../api/rest-types';

/** Fifteen seconds: Burrow's status moves with commits over minutes, not seconds. */
export const LAG_STATUS_POLL_MS = 15_000;
/** A few at a time, so a page of rows does not queue fifty requests in front of the user's clicks. */
const CONCURRENCY = 4;

/** What a row of groups shows of a group's lag; the totals null while unknown (no end offset reported). */
export interface GroupLagSummary {
  status: LagStatus;
  totalLag: number | null;
  maxTimeLagMs: number | null;
}

/** The group's lag over `topic`'s partitions only (a topic's page), or over all of them. */
export function summarize(lag: GroupLag, topic?: string): GroupLagSummary {
  if (topic === undefined) return { status: lag.status, totalLag: lag.totalLag, maxTimeLagMs: lag.maxTimeLagMs };
  let totalLag: number | null = null;
  let maxTimeLagMs: number | null = null;
  for (const p of lag.partitions) {
    if (p.topic !== topic) continue;
    if (p.lag !== null) totalLag = (totalLag ?? 0) + p.lag;
    if (p.timeLagMs !== null) maxTimeLagMs = Math.max(maxTimeLagMs ?? 0, p.timeLagMs);
  }
  return { status: lag.status, totalLag, maxTimeLagMs };
}

/**
 * The lag of the groups on screen only (one `/lag` request per visible group): the group list has no
 * lag, and asking for 10,000 groups' lag to show 50 would be waste. With `topic`, each group's lag on
 * that topic.
 */
export function useGroupLags(groupIds: readonly string[], topic?: string): Map<string, GroupLagSummary | 'ERROR'> {
  const [lags, setLags] = useState<Map<string, GroupLagSummary | 'ERROR'>>(new Map());
  const key = `${topic ?? ''}\n${groupIds.join('\n')}`;
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = async (): Promise<void> => {
      const queue = [...groupIds];
      const worker = async (): Promise<void> => {
        for (let id = queue.shift(); id !== undefined && !stopped; id = queue.shift()) {
          const groupId = id;
          const lag = await api.get<GroupLag>(groupPath(groupId, '/lag')).then(
            (answer) => summarize(answer, topic),
            () => 'ERROR' as const,
          );
          if (!stopped) setLags((previous) => new Map(previous).set(groupId, lag));
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      if (!stopped && !document.hidden) timer = setTimeout(() => void refresh(), LAG_STATUS_POLL_MS);
    };
    void refresh();
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [key]);
  return lags;
}
