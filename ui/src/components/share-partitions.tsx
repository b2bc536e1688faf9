import { useState } from 'preact/hooks';
import { api, groupPath } from '../api/api';
import type { DeadLetterRange, DeadLetters, SharePartitionView } from '../api/rest-types';
import { formatDuration, formatNumber } from '../format';
import { usePolling } from '../hooks/use-polling';
import { ConfirmDialog } from './confirm-dialog';
import { ErrorBanner } from './error-banner';

/**
 * A share group's partitions (KIP-932): where each one's start offset (SPSO) stands against the end
 * producers reported, how many offsets are in each state, and how old the oldest lease is.
 */
export function SharePartitionsTable({ partitions }: { partitions: SharePartitionView[] }) {
  if (partitions.length === 0) return <p class="muted">No share partition yet: nothing was leased.</p>;
  return (
    <table class="share-partitions">
      <thead>
        <tr>
          <th>Topic</th>
          <th class="num">Partition</th>
          <th class="num" title="Share-partition start offset: every offset below it is done">
            SPSO
          </th>
          <th class="num" title="The end offset producers reported">
            End
          </th>
          <th class="num">Available</th>
          <th class="num">Leased</th>
          <th class="num">Acknowledged</th>
          <th class="num" title="Rejected, or delivered GROUP_SHARE_DELIVERY_COUNT_LIMIT times">
            Archived
          </th>
          <th class="num">Oldest lease</th>
        </tr>
      </thead>
      <tbody>
        {partitions.map((p) => (
          <tr key={`${p.topic}-${p.partition}`} data-share-partition={`${p.topic}-${p.partition}`}>
            <td>{p.topic}</td>
            <td class="num">{p.partition}</td>
            <td class="num spso">{formatNumber(p.startOffset)}</td>
            <td class="num">{formatNumber(p.endOffset)}</td>
            <td class="num available">{formatNumber(p.offsets.available)}</td>
            <td class="num acquired">{formatNumber(p.offsets.acquired)}</td>
            <td class="num">{formatNumber(p.offsets.acknowledged)}</td>
            <td class="num">{formatNumber(p.offsets.archived)}</td>
            <td class="num lease-age">{p.oldestLeaseAgeMs === null ? '—' : formatDuration(p.oldestLeaseAgeMs)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The group's dead letters, each range with a Redeliver action (asked for confirmation, audited by the node). */
export function DeadLettersList({ groupId, onRedelivered }: { groupId: string; onRedelivered(): void }) {
  const polled = usePolling(() => api.get<DeadLetters>(groupPath(groupId, '/dead-letters')), 5000, [groupId]);
  const [chosen, setChosen] = useState<DeadLetterRange | null>(null);
  const ranges = polled.data?.deadLetters ?? [];
  return (
    <>
      <ErrorBanner error={polled.error} />
      {polled.data && ranges.length === 0 && <p class="muted">No dead letter.</p>}
      {ranges.length > 0 && (
        <table class="dead-letters">
          <thead>
            <tr>
              <th>Topic</th>
              <th class="num">Partition</th>
              <th class="num">Offsets</th>
              <th>Reason</th>
              <th class="num">Deliveries</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {ranges.map((d) => (
              <tr
                key={`${d.topic}-${d.partition}-${d.firstOffset}`}
                data-dead-letter={`${d.topic}-${d.partition}-${d.firstOffset}`}
              >
                <td>{d.topic}</td>
                <td class="num">{d.partition}</td>
                <td class="num">
                  {d.firstOffset === d.lastOffset ? d.firstOffset : `${d.firstOffset}–${d.lastOffset}`}
                </td>
                <td class="reason">{d.reason}</td>
                <td class="num">{d.deliveryCount}</td>
                <td>
                  <button type="button" onClick={() => setChosen(d)}>
                    Redeliver…
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {chosen && (
        <ConfirmDialog
          title={`Redeliver ${chosen.topic}-${chosen.partition} ${chosen.firstOffset}–${chosen.lastOffset}?`}
          confirmLabel="Yes, redeliver"
          onClose={() => setChosen(null)}
          onConfirm={async () => {
            await api.post(groupPath(groupId, '/dead-letters/redeliver'), {
              topic: chosen.topic,
              partition: chosen.partition,
              firstOffset: chosen.firstOffset,
              lastOffset: chosen.lastOffset,
            });
            polled.refresh();
            onRedelivered();
          }}
        >
          <p>
            These offsets become available again, their delivery count starting from zero, and members will lease them.
            Below the start offset (SPSO), SPSO moves back to them.
          </p>
        </ConfirmDialog>
      )}
    </>
  );
}
