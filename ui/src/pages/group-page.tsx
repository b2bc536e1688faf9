import { useState } from 'preact/hooks';
import { api, groupPath } from '../api/api';
import { RestError } from '../api/rest-error';
import type { GroupDescription, GroupLag, GroupMember, RebalanceRecord, ResetOffsetsResult } from '../api/rest-types';
import { Badge, GroupTypeBadge } from '../components/badge';
import { ConsumerMembersTable } from '../components/consumer-members-table';
import { DeadLettersList, SharePartitionsTable } from '../components/share-partitions';
import { ConfirmDialog } from '../components/confirm-dialog';
import { ErrorBanner } from '../components/error-banner';
import { LagTable } from '../components/lag-table';
import { MembersTable } from '../components/members-table';
import { OffsetResetDialog } from '../components/offset-reset-dialog';
import { RebalanceTimeline } from '../components/rebalance-timeline';
import { assignedPartitions, formatNumber, formatTimeLag } from '../format';
import { usePolling } from '../hooks/use-polling';

/**
 * Two seconds: a rebalance shows within one heartbeat interval of Kafka's default (3 s), and the three
 * small requests per tick cost the coordinator little; hidden tabs do not poll.
 */
export const GROUP_POLL_MS = 2000;

interface GroupData {
  group: GroupDescription;
  lag: GroupLag | null;
  lagError: unknown;
  rebalances: RebalanceRecord[];
}

async function loadGroup(groupId: string): Promise<GroupData> {
  const [group, lag, rebalances] = await Promise.allSettled([
    api.get<GroupDescription>(groupPath(groupId)),
    api.get<GroupLag>(groupPath(groupId, '/lag')),
    api.get<RebalanceRecord[]>(groupPath(groupId, '/rebalances')),
  ]);
  if (group.status === 'rejected') throw group.reason;
  return {
    group: group.value,
    lag: lag.status === 'fulfilled' ? lag.value : null,
    lagError: lag.status === 'rejected' ? lag.reason : null,
    rebalances: rebalances.status === 'fulfilled' ? rebalances.value : [],
  };
}

/** One group, live: members and assignments, lag per partition, the rebalance timeline; reset and delete. */
export function GroupPage({ groupId }: { groupId: string }) {
  const polled = usePolling(() => loadGroup(groupId), GROUP_POLL_MS, [groupId]);
  const [dialog, setDialog] = useState<'reset' | 'delete' | null>(null);
  const [lastReset, setLastReset] = useState<ResetOffsetsResult | null>(null);
  const data = polled.data;
  const missing = polled.error instanceof RestError && polled.error.errorName === 'GROUP_ID_NOT_FOUND';

  const members = data?.group.members.length ?? 0;
  // The node refuses to delete a group with members (NON_EMPTY_GROUP): say so instead of offering it.
  const deleteRefusal =
    members > 0
      ? `The group has ${members} member${members > 1 ? 's' : ''}: only an Empty group can be deleted (stop its consumers first).`
      : null;
  const header = (
    <div class="page-head">
      <h1>
        <a href="#/groups">Groups</a> / <span class="mono">{groupId}</span>
      </h1>
      {data && !missing && (
        <div class="actions">
          <button type="button" onClick={() => setDialog('reset')}>
            Reset offsets…
          </button>
          <button
            type="button"
            class="danger"
            disabled={deleteRefusal !== null}
            title={deleteRefusal ?? undefined}
            aria-describedby={deleteRefusal ? 'delete-refusal' : undefined}
            onClick={() => setDialog('delete')}
          >
            Delete group…
          </button>
        </div>
      )}
      {data && !missing && deleteRefusal && (
        <p id="delete-refusal" class="muted action-note">
          {deleteRefusal}
        </p>
      )}
    </div>
  );
  if (missing) {
    return (
      <section>
        {header}
        <ErrorBanner error={polled.error} />
        <p>
          <a href="#/groups">Back to the groups</a>
        </p>
      </section>
    );
  }
  if (!data) {
    return (
      <section>
        {header}
        {polled.error ? <ErrorBanner error={polled.error} /> : <p class="muted">Loading…</p>}
      </section>
    );
  }
  const { group, lag, rebalances } = data;
  const owners = new Map<string, GroupMember>();
  for (const member of group.members) {
    for (const entry of assignedPartitions(member.assignment) ?? []) {
      for (const partition of entry.partitions) owners.set(`${entry.topic}-${partition}`, member);
    }
  }
  const consumer = group.type === 'consumer';
  const share = group.type === 'share';
  // A share group's position is each share partition's start offset (SPSO), not a committed offset.
  const topics = [
    ...new Set(share ? (group.sharePartitions ?? []).map((p) => p.topic) : (lag?.partitions ?? []).map((p) => p.topic)),
  ].sort();
  return (
    <section>
      {header}
      <ErrorBanner error={polled.error} />
      <dl class="facts">
        <div>
          <dt>State</dt>
          <dd class="group-state">
            <Badge value={group.state} />
          </dd>
        </div>
        <div>
          <dt>Type</dt>
          <dd class="group-type">
            <GroupTypeBadge type={group.type} />
          </dd>
        </div>
        <div>
          <dt>Members</dt>
          <dd class="member-count">{group.members.length}</dd>
        </div>
        {consumer || share ? (
          <>
            <div title="Moves when the membership, a subscription or a subscribed topic changes">
              <dt>Group epoch</dt>
              <dd class="group-epoch">{group.groupEpoch}</dd>
            </div>
            <div title="The group epoch the target assignment was computed at">
              <dt>Assignment epoch</dt>
              <dd class="assignment-epoch">{group.assignmentEpoch}</dd>
            </div>
            <div>
              <dt>Assignor</dt>
              <dd class="assignor">{group.assignor}</dd>
            </div>
          </>
        ) : (
          <>
            <div>
              <dt>Generation</dt>
              <dd class="generation">{group.generationId}</dd>
            </div>
            <div>
              <dt>Protocol</dt>
              <dd>{[group.protocolType, group.protocol].filter(Boolean).join(' / ') || '—'}</dd>
            </div>
          </>
        )}
        <div>
          <dt>Coordinator</dt>
          <dd>
            node {group.coordinator ?? '—'} · partition {group.coordinatorPartition}
          </dd>
        </div>
        <div>
          <dt>Lag</dt>
          <dd>
            {lag ? (
              <>
                <Badge value={lag.status} /> total {formatNumber(lag.totalLag)} · max {formatNumber(lag.maxLag)}
              </>
            ) : (
              '—'
            )}
          </dd>
        </div>
        <div title="How long ago the committed offset was the log end, the largest of the group's partitions (docs/lag.md)">
          <dt>Time lag</dt>
          <dd class="time-lag">{lag ? formatTimeLag(lag.maxTimeLagMs) : '—'}</dd>
        </div>
      </dl>
      {lastReset && (
        <div class="notice" role="status">
          Offsets reset: {formatNumber(lastReset.offsets.length)} partitions written.
        </div>
      )}
      <h2>Members</h2>
      {consumer ? (
        <ConsumerMembersTable members={group.members} assignmentEpoch={group.assignmentEpoch ?? -1} />
      ) : (
        <MembersTable members={group.members} leader={group.leader} />
      )}
      {share ? (
        <>
          <h2>Share partitions</h2>
          <SharePartitionsTable partitions={group.sharePartitions ?? []} />
          <h2>Dead letters</h2>
          <DeadLettersList groupId={groupId} onRedelivered={polled.refresh} />
        </>
      ) : (
        <>
          <h2>Lag</h2>
          <ErrorBanner error={data.lagError} />
          {lag && <LagTable lag={lag} owners={owners} />}
          <h2>{consumer ? 'Epoch history' : 'Rebalances'}</h2>
          <RebalanceTimeline rebalances={rebalances} />
        </>
      )}
      {dialog === 'reset' && (
        <OffsetResetDialog
          groupId={groupId}
          topics={topics}
          members={group.members.length}
          share={share}
          onClose={() => setDialog(null)}
          onReset={(result) => {
            setLastReset(result);
            polled.refresh();
          }}
        />
      )}
      {dialog === 'delete' && (
        <ConfirmDialog
          title={`Delete group ${groupId}?`}
          confirmLabel="Yes, delete the group"
          danger
          onClose={() => setDialog(null)}
          onConfirm={async () => {
            await api.delete(groupPath(groupId));
            window.location.hash = '#/groups';
          }}
        >
          <p>
            Its committed offsets are removed for good. Only an Empty group can be deleted: stop its consumers first
            (the node answers NON_EMPTY_GROUP otherwise).
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
