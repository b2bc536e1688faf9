import { api } from '../api/api';
import { RestError } from '../api/rest-error';
import type { GroupListing, TopicInfo } from '../api/rest-types';
import { Badge } from '../components/badge';
import { ErrorBanner } from '../components/error-banner';
import { GroupLagCells } from '../components/group-lag-cells';
import { formatAgo, formatNumber } from '../format';
import { useGroupLags } from '../hooks/use-group-lags';
import { usePolling } from '../hooks/use-polling';
import { groupHref } from '../routes';

/** Ten seconds, as the topics page: end offsets change as producers report them, consumers rarely. */
export const TOPIC_POLL_MS = 10_000;

interface TopicData {
  topic: TopicInfo;
  groups: GroupListing[] | null;
  groupsError: unknown;
}

async function loadTopic(name: string): Promise<TopicData> {
  const path = `/v1/topics/${encodeURIComponent(name)}`;
  const [topic, groups] = await Promise.allSettled([
    api.get<TopicInfo>(path),
    api.get<GroupListing[]>(`/v1/groups?topic=${encodeURIComponent(name)}`),
  ]);
  if (topic.status === 'rejected') throw topic.reason;
  return {
    topic: topic.value,
    groups: groups.status === 'fulfilled' ? groups.value : null,
    groupsError: groups.status === 'rejected' ? groups.reason : null,
  };
}

/** One topic: its partitions with the reported offsets, and the groups consuming it with their lag on it. */
export function TopicPage({ name }: { name: string }) {
  const polled = usePolling(() => loadTopic(name), TOPIC_POLL_MS, [name]);
  const groups = polled.data?.groups ?? [];
  const lags = useGroupLags(
    groups.map((g) => g.groupId),
    name,
  );
  const missing = polled.error instanceof RestError && polled.error.errorName === 'UNKNOWN_TOPIC_OR_PARTITION';
  const header = (
    <div class="page-head">
      <h1>
        <a href="#/topics">Topics</a> / <span class="mono">{name}</span>
      </h1>
      <span class="muted updated">{polled.updatedAt ? `updated ${formatAgo(polled.updatedAt, Date.now())}` : ''}</span>
    </div>
  );
  if (!polled.data) {
    return (
      <section>
        {header}
        {polled.error ? <ErrorBanner error={polled.error} /> : <p class="muted">Loading…</p>}
        {missing && (
          <p>
            <a href="#/topics">Back to the topics</a>
          </p>
        )}
      </section>
    );
  }
  const { topic } = polled.data;
  const now = Date.now();
  return (
    <section>
      {header}
      <ErrorBanner error={polled.error} />
      <h2>Consuming groups</h2>
      <ErrorBanner error={polled.data.groupsError} />
      {polled.data.groups && groups.length === 0 && (
        <p class="muted">No group consumes this topic: none has committed an offset on it or subscribed to it.</p>
      )}
      {groups.length > 0 && (
        <table class="consumers">
          <thead>
            <tr>
              <th>Group</th>
              <th>State</th>
              <th class="num">Members</th>
              <th class="num" title="Summed over this topic's partitions whose end offset was reported">
                Lag
              </th>
              <th
                class="num"
                title="How long ago the committed offset was the log end, the largest of this topic's partitions"
              >
                Time lag
              </th>
              <th>Lag status</th>
            </tr>
          </thead>
          <tbody>
            {groups.map((g) => (
              <tr key={g.groupId} data-group={g.groupId}>
                <td class="mono">
                  <a href={groupHref(g.groupId)}>{g.groupId}</a>
                </td>
                <td>
                  <Badge value={g.state} />
                </td>
                <td class="num">{g.members}</td>
                <GroupLagCells lag={lags.get(g.groupId)} />
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <h2>Partitions</h2>
      <table class="topic-partitions">
        <thead>
          <tr>
            <th class="num">Partition</th>
            <th class="num">Start offset</th>
            <th class="num">End offset</th>
            <th>Latest report</th>
          </tr>
        </thead>
        <tbody>
          {Array.from({ length: topic.partitions }, (_, partition) => (
            <tr key={partition} data-partition={partition}>
              <td class="num">{partition}</td>
              <td class="num">{formatNumber(topic.startOffsets?.[partition])}</td>
              <td class="num">{formatNumber(topic.endOffsets[partition])}</td>
              <td class="muted">{formatAgo(topic.reportedAt?.[partition], now)}</td>
            </tr>
          ))}
        </tbody>
      </table>
      {Object.keys(topic.endOffsets).length === 0 && (
        <p class="muted">
          No end offset reported yet: lag is unknown until producers report them (PUT /v1/topics/{name}/end-offsets).
        </p>
      )}
    </section>
  );
}
