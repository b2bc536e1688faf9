import { useEffect, useState } from 'preact/hooks';
import { api, groupPath } from '../api/api';
import type { GroupLag, LagStatus } from '../api/rest-types';

/** Fifteen seconds: Burrow's status moves with commits over minutes, not seconds. */
export const LAG_STATUS_POLL_MS = 15_000;
/** A few at a time, so a page of rows does not queue fifty requests in front of the user's clicks. */
const CONCURRENCY = 4;

/**
 * Burrow's status of the groups on screen only (one `/lag` request per visible group): the group list
 * has no lag, and asking for 10,000 groups' lag to show 50 would be waste.
 */
export function useLagStatuses(groupIds: readonly string[]): Map<string, LagStatus | 'ERROR'> {
  const [statuses, setStatuses] = useState<Map<string, LagStatus | 'ERROR'>>(new Map());
  const key = groupIds.join('\n');
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const refresh = async (): Promise<void> => {
      const queue = [...groupIds];
      const worker = async (): Promise<void> => {
        for (let id = queue.shift(); id !== undefined && !stopped; id = queue.shift()) {
          const groupId = id;
          const status = await api.get<GroupLag>(groupPath(groupId, '/lag')).then(
            (lag) => lag.status,
            () => 'ERROR' as const,
          );
          if (!stopped) setStatuses((previous) => new Map(previous).set(groupId, status));
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
  return statuses;
}
