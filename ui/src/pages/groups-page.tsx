import { useEffect, useMemo, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { AnyGroupStateName, GroupListing } from '../api/rest-types';
import { Badge, GroupTypeBadge } from '../components/badge';
import { ErrorBanner } from '../components/error-banner';
import { GroupLagCells } from '../components/group-lag-cells';
import { PAGE_SIZE, Pager } from '../components/pager';
import { formatAgo, formatNumber } from '../format';
import { groupHref } from '../routes';
import { useGroupLags } from '../hooks/use-group-lags';
import { usePolling } from '../hooks/use-polling';

/** Ten seconds: the list is the whole cluster's (up to 10,000 groups); an unchanged one comes back as a 304. */
export const GROUPS_POLL_MS = 10_000;
/** Performance marks (devtools, bench/dashboard.bench.ts): the list rendered; its rows' lag statuses in. */
export const MARK_USABLE = 'cohort:groups-usable';
export const MARK_LAG_STATUSES = 'cohort:groups-lag-statuses';
// Classic states, then the consumer groups' own (KIP-848).
const STATES: AnyGroupStateName[] = [
  'Stable',
  'PreparingRebalance',
  'CompletingRebalance',
  'Assigning',
  'Reconciling',
  'Empty',
  'Dead',
];

/** Every group of the cluster: filter by text and state, one page of 50 rows at a time, the lag of those. */
export function GroupsPage() {
  const polled = usePolling(() => api.get<GroupListing[]>('/v1/groups'), GROUPS_POLL_MS, []);
  const [filter, setFilter] = useState('');
  const [state, setState] = useState('');
  const [page, setPage] = useState(0);
  const sorted = useMemo(
    () => [...(polled.data ?? [])].sort((a, b) => (a.groupId < b.groupId ? -1 : a.groupId > b.groupId ? 1 : 0)),
    [polled.data],
  );
  const matching = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return sorted.filter((g) => (!state || g.state === state) && (!needle || g.groupId.toLowerCase().includes(needle)));
  }, [sorted, filter, state]);
  const lastPage = Math.max(0, Math.ceil(matching.length / PAGE_SIZE) - 1);
  const shown = matching.slice(Math.min(page, lastPage) * PAGE_SIZE, (Math.min(page, lastPage) + 1) * PAGE_SIZE);
  const lags = useGroupLags(shown.map((g) => g.groupId));
  const rendered = polled.data !== null;
  const statusesIn = rendered && shown.every((g) => lags.has(g.groupId));
  useEffect(() => markOnce(MARK_USABLE, rendered), [rendered]);
  useEffect(() => markOnce(MARK_LAG_STATUSES, statusesIn), [statusesIn]);
  const counts = useMemo(() => {
    const byState = new Map<string, number>();
    for (const g of sorted) byState.set(g.state, (byState.get(g.state) ?? 0) + 1);
    return byState;
  }, [sorted]);

  return (
    <section>
      <div class="page-head">
        <h1>Groups</h1>
        <span class="muted updated">
          {polled.updatedAt ? `updated ${formatAgo(polled.updatedAt, Date.now())}` : ''}
        </span>
      </div>
      <ErrorBanner error={polled.error} />
      <div class="toolbar">
        <input
          type="search"
          name="filter"
          placeholder="Filter by group id"
          value={filter}
          onInput={(e) => {
            setFilter(e.currentTarget.value);
            setPage(0);
          }}
        />
        <select
          name="state"
          value={state}
          onChange={(e) => {
            setState(e.currentTarget.value);
            setPage(0);
          }}
        >
          <option value="">all states ({formatNumber(sorted.length)})</option>
          {STATES.map((s) => (
            <option key={s} value={s}>
              {s} ({formatNumber(counts.get(s) ?? 0)})
            </option>
          ))}
        </select>
        <Pager page={Math.min(page, lastPage)} total={matching.length} onPage={setPage} />
      </div>
      {!polled.data && !polled.error && <p class="muted">Loading…</p>}
      {polled.data && (
        <table class="groups">
          <thead>
            <tr>
              <th>Group</th>
              <th>State</th>
              <th class="num">Members</th>
              <th class="num" title="Summed over the partitions whose end offset was reported">
                Lag
              </th>
              <th
                class="num"
                title="How long ago the committed offset was the log end, the largest of the group's partitions (docs/lag.md)"
              >
                Time lag
              </th>
              <th>Lag status</th>
              <th title="classic or consumer (Kafka 4's protocol), then the protocol type">Type</th>
              <th class="num">Coordinator</th>
            </tr>
          </thead>
          <tbody>
            {shown.map((g) => (
              <tr key={g.groupId} data-group={g.groupId}>
                <td class="mono">
                  <a href={groupHref(g.groupId)}>{g.groupId}</a>
                </td>
                <td>
                  <Badge value={g.state} />
                </td>
                <td class="num">{g.members}</td>
                <GroupLagCells lag={lags.get(g.groupId)} />
                <td class="group-type">
                  <GroupTypeBadge type={g.type} /> {g.protocolType || '—'}
                </td>
                <td class="num">{g.coordinator ?? '—'}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {polled.data && matching.length === 0 && <p class="muted">No group matches.</p>}
    </section>
  );
}

function markOnce(name: string, reached: boolean): void {
  if (reached && performance.getEntriesByName(name).length === 0) performance.mark(name);
}
