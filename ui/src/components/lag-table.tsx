import type { GroupLag } from '../api/rest-types';
import { formatAgo, formatNumber } from '../format';
import { Badge } from './badge';
import { Sparkline } from './sparkline';

/** Committed offset, end offset, lag and Burrow's status per partition, with the lag's recent history. */
export function LagTable({ lag, owners }: { lag: GroupLag; owners: Map<string, string> }) {
  if (lag.partitions.length === 0) return <p class="muted">The group has no committed offsets.</p>;
  const now = Date.now();
  return (
    <table class="lag">
      <thead>
        <tr>
          <th>Topic</th>
          <th class="num">Partition</th>
          <th class="num">Committed</th>
          <th class="num">Log end</th>
          <th class="num">Lag</th>
          <th>Status</th>
          <th>Recent lag</th>
          <th>Last commit</th>
          <th>Owner</th>
        </tr>
      </thead>
      <tbody>
        {lag.partitions.map((p) => {
          const key = `${p.topic}-${p.partition}`;
          const lastCommit = p.history?.length ? p.history[p.history.length - 1].timestamp : null;
          return (
            <tr key={key} data-partition={key}>
              <td>{p.topic}</td>
              <td class="num">{p.partition}</td>
              <td class="num committed">{formatNumber(p.committedOffset)}</td>
              <td class="num">{formatNumber(p.logEndOffset)}</td>
              <td class="num lag-value">{formatNumber(p.lag)}</td>
              <td>
                <Badge value={p.status} />
              </td>
              <td>
                <Sparkline samples={p.history} />
              </td>
              <td class="muted">{formatAgo(lastCommit, now)}</td>
              <td class="muted">{owners.get(key) ?? '—'}</td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}
