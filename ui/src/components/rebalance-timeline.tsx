import type { RebalanceRecord } from '../api/rest-types';
import { formatAgo, formatClock, formatDuration } from '../format';

/** How a consumer group's epoch bump ended: converged (after how long), still converging, or superseded. */
function outcomeOf(r: RebalanceRecord): string {
  if (r.outcome === 'superseded') return 'superseded by a later epoch before every member held its target';
  if (r.completedAt === null) return 'converging';
  return `converged in ${formatDuration(r.durationMs)}`;
}

/**
 * The group's rebalances, newest first: why each started, how long members waited, how many took part.
 * For a consumer group, each entry is a group epoch bump: its reason, whose change it was, and how long
 * until every member held its target.
 */
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
          data-epoch={r.groupEpoch}
          class={r.completedAt === null ? 'open' : ''}
        >
          <div class="when">
            <strong>{formatClock(r.startedAt)}</strong>
            <span class="muted">{formatAgo(r.startedAt, now)}</span>
          </div>
          <div class="what">
            <div>
              <span class="gen">
                {r.groupEpoch === undefined ? 'generation' : 'epoch'} {r.generationId}
              </span>
              <span class="reason">{r.reason}</span>
              {r.memberId && <span class="tag mono">{r.memberId}</span>}
            </div>
            <div class="muted outcome">
              {r.members} member{r.members === 1 ? '' : 's'}
              {r.protocol ? ` · ${r.protocol}` : ''} ·{' '}
              {r.groupEpoch !== undefined
                ? outcomeOf(r)
                : r.completedAt === null
                  ? 'in progress'
                  : `took ${formatDuration(r.durationMs)}`}
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
