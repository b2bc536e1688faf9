import type { RebalanceRecord } from '../api/rest-types';
import { formatAgo, formatClock, formatDuration } from '../format';

/** The group's rebalances, newest first: why each started, how long members waited, how many took part. */
export function RebalanceTimeline({ rebalances }: { rebalances: RebalanceRecord[] }) {
  if (rebalances.length === 0) return <p class="muted">No rebalance recorded yet.</p>;
  const sorted = [...rebalances].sort((a, b) => b.generationId - a.generationId || b.startedAt - a.startedAt);
  const longest = Math.max(1, ...sorted.map((r) => r.durationMs ?? 0));
  const now = Date.now();
  return (
    <ol class="timeline">
      {sorted.map((r) => (
        <li
          key={`${r.generationId}-${r.startedAt}`}
          data-generation={r.generationId}
          class={r.completedAt === null ? 'open' : ''}
        >
          <div class="when">
            <strong>{formatClock(r.startedAt)}</strong>
            <span class="muted">{formatAgo(r.startedAt, now)}</span>
          </div>
          <div class="what">
            <div>
              <span class="gen">generation {r.generationId}</span>
              <span class="reason">{r.reason}</span>
            </div>
            <div class="muted">
              {r.members} member{r.members === 1 ? '' : 's'}
              {r.protocol ? ` · ${r.protocol}` : ''} ·{' '}
              {r.completedAt === null ? 'in progress' : `took ${formatDuration(r.durationMs)}`}
            </div>
            <div
              class="bar"
              style={{ width: `${r.durationMs === null ? 100 : Math.max(2, (r.durationMs / longest) * 100)}%` }}
            />
          </div>
        </li>
      ))}
    </ol>
  );
}
