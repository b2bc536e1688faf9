import { useState } from 'preact/hooks';
import type { GroupLag, GroupMember } from '../api/rest-types';
import { formatAgo, formatNumber, formatTimeLag } from '../format';
import { Badge } from './badge';
import { PAGE_SIZE, Pager } from './pager';
import { Sparkline } from './sparkline';

/**
 * Who holds a partition: its member id, then client id and host, since the members of one application
 * often share a client id (both quick-start members are `quickstart`).
 */
function Owner({ member }: { member: GroupMember | undefined }) {
  if (!member) return <span class="muted">—</span>;
  return (
    <span class="owner">
      <span class="mono member-id" title={member.memberId}>
        {member.memberId}
      </span>
      <span class="muted">
        {member.clientId || '—'} · {member.clientHost}
      </span>
    </span>
  );
}

/**
 * Committed offset, end offset, lag, time lag and Burrow's status per partition, with the lag's recent
 * history and the partition's owner; 50 partitions a page for groups that consume many.
 */
export function LagTable({ lag, owners }: { lag: GroupLag; owners: Map<string, GroupMember> }) {
  const [page, setPage] = useState(0);
  if (lag.partitions.length === 0) return <p class="muted">The group has no committed offsets.</p>;
  const now = Date.now();
  const current = Math.min(page, Math.max(0, Math.ceil(lag.partitions.length / PAGE_SIZE) - 1));
  const shown = lag.partitions.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE);
  return (
    <>
      {lag.partitions.length > PAGE_SIZE && <Pager page={current} total={lag.partitions.length} onPage={setPage} />}
      <table class="lag">
        <thead>
          <tr>
            <th>Topic</th>
            <th class="num">Partition</th>
            <th class="num">Committed</th>
            <th class="num">Log end</th>
            <th class="num">Lag</th>
            <th class="num" title="How long ago the committed offset was the log end (docs/lag.md)">
              Time lag
            </th>
            <th>Status</th>
            <th>Recent lag</th>
            <th>Last commit</th>
            <th>Owner</th>
          </tr>
        </thead>
        <tbody>
          {shown.map((p) => {
            const key = `${p.topic}-${p.partition}`;
            const lastCommit = p.history?.length ? p.history[p.history.length - 1].timestamp : null;
            return (
              <tr key={key} data-partition={key}>
                <td>{p.topic}</td>
                <td class="num">{p.partition}</td>
                <td class="num committed">{formatNumber(p.committedOffset)}</td>
                <td class="num">{formatNumber(p.logEndOffset)}</td>
                <td class="num lag-value">{formatNumber(p.lag)}</td>
                <td class="num time-lag">{formatTimeLag(p.timeLagMs)}</td>
                <td>
                  <Badge value={p.status} />
                </td>
                <td>
                  <Sparkline samples={p.history} />
                </td>
                <td class="muted">{formatAgo(lastCommit, now)}</td>
                <td class="owner-cell">
                  <Owner member={owners.get(key)} />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
