import { useMemo, useState } from 'preact/hooks';
import { api } from '../api/api';
import type { TopicInfo } from '../api/rest-types';
import { ErrorBanner } from '../components/error-banner';
import { PAGE_SIZE, Pager } from '../components/pager';
import { formatAgo, formatNumber } from '../format';
import { usePolling } from '../hooks/use-polling';
import { topicHref } from '../routes';

/** Ten seconds: partition counts change rarely; end offsets as often as producers report them. */
export const TOPICS_POLL_MS = 10_000;

function summary(topic: TopicInfo): {
  reported: number;
  endSum: number;
  startReported: number;
  startSum: number;
  latestReport: number | null;
} {
  const ends = Object.values(topic.endOffsets ?? {});
  const starts = Object.values(topic.startOffsets ?? {});
  const times = Object.values(topic.reportedAt ?? {});
  return {
    reported: ends.length,
    endSum: ends.reduce((a, b) => a + b, 0),
    startReported: starts.length,
    startSum: starts.reduce((a, b) => a + b, 0),
    latestReport: times.length ? Math.max(...times) : null,
  };
}

/** The topic registry: partition counts, and the end offsets producers reported for lag; each topic links to its page. */
export function TopicsPage() {
  const polled = usePolling(() => api.get<TopicInfo[]>('/v1/topics'), TOPICS_POLL_MS, []);
  const [filter, setFilter] = useState('');
  const [page, setPage] = useState(0);
  const matching = useMemo(() => {
    const needle = filter.trim().toLowerCase();
    return [...(polled.data ?? [])]
      .filter((t) => !needle || t.name.toLowerCase().includes(needle))
      .sort((a, b) => a.name.localeCompare(b.name));
  }, [polled.data, filter]);
  const lastPage = Math.max(0, Math.ceil(matching.length / PAGE_SIZE) - 1);
  const current = Math.min(page, lastPage);
  const now = Date.now();
  return (
    <section>
      <div class="page-head">
        <h1>Topics</h1>
        <span class="muted updated">{polled.updatedAt ? `updated ${formatAgo(polled.updatedAt, now)}` : ''}</span>
      </div>
      <ErrorBanner error={polled.error} />
      <div class="toolbar">
        <input
          type="search"
          name="filter"
          placeholder="Filter by topic name"
          value={filter}
          onInput={(e) => {
            setFilter(e.currentTarget.value);
            setPage(0);
          }}
        />
        <Pager page={current} total={matching.length} onPage={setPage} />
      </div>
      {!polled.data && !polled.error && <p class="muted">Loading…</p>}
      {polled.data && (
        <table class="topics">
          <thead>
            <tr>
              <th>Topic</th>
              <th class="num">Partitions</th>
              <th class="num">End offsets reported</th>
              <th class="num">End offsets (sum)</th>
              <th class="num">Start offsets (sum)</th>
              <th>Latest report</th>
            </tr>
          </thead>
          <tbody>
            {matching.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE).map((t) => {
              const s = summary(t);
              return (
                <tr key={t.name} data-topic={t.name}>
                  <td class="mono">
                    <a href={topicHref(t.name)}>{t.name}</a>
                  </td>
                  <td class="num">{t.partitions}</td>
                  <td class="num">
                    {s.reported} / {t.partitions}
                  </td>
                  <td class="num">{s.reported ? formatNumber(s.endSum) : '—'}</td>
                  <td class="num">{s.startReported ? formatNumber(s.startSum) : '—'}</td>
                  <td class="muted">{formatAgo(s.latestReport, now)}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      )}
      {polled.data && matching.length === 0 && (
        <p class="muted">No topic{filter ? ' matches' : ' yet: create one with POST /v1/topics'}.</p>
      )}
    </section>
  );
}
