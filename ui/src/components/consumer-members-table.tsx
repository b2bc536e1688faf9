import { useState } from 'preact/hooks';
import type { GroupMember, TopicPartitions } from '../api/rest-types';
import { formatPartitions } from '../format';
import { PAGE_SIZE, Pager } from './pager';

/** What a member's reconciliation state means, for the cell's tooltip. */
const MEMBER_STATE_HELP: Record<string, string> = {
  STABLE: 'holds its target (or waits for a newer one)',
  UNREVOKED_PARTITIONS: 'must give partitions up before it gets new ones',
  UNRELEASED_PARTITIONS: 'waits for partitions another member still holds',
  UNKNOWN: 'a state this node does not know',
};

function Partitions({ list, none }: { list: TopicPartitions[] | undefined; none: string }) {
  const shown = (list ?? []).filter((entry) => entry.partitions.length > 0);
  if (shown.length === 0) return <span class="muted">{none}</span>;
  return (
    <>
      {shown.map((entry) => (
        <div key={entry.topic}>
          <strong>{entry.topic}</strong>: {formatPartitions(entry.partitions)}
        </div>
      ))}
    </>
  );
}

const key = (list: TopicPartitions[] | undefined) =>
  JSON.stringify((list ?? []).filter((e) => e.partitions.length > 0).map((e) => [e.topic, [...e.partitions].sort()]));

/**
 * The members of a consumer group (Kafka 4's protocol): each one's epoch and reconciliation state, what
 * it holds against its target at the assignment epoch, and what it must still give up; a member not at
 * its target is marked, since the group waits for it. 50 members a page.
 */
export function ConsumerMembersTable({
  members,
  assignmentEpoch,
}: {
  members: GroupMember[];
  assignmentEpoch: number;
}) {
  const [page, setPage] = useState(0);
  if (members.length === 0) return <p class="muted">No members: the group is not consuming.</p>;
  const sorted = [...members].sort((a, b) => a.memberId.localeCompare(b.memberId));
  const current = Math.min(page, Math.max(0, Math.ceil(sorted.length / PAGE_SIZE) - 1));
  return (
    <>
      {sorted.length > PAGE_SIZE && <Pager page={current} total={sorted.length} onPage={setPage} />}
      <table class="members consumer-members">
        <thead>
          <tr>
            <th>Member</th>
            <th>Client id</th>
            <th>Subscription</th>
            <th class="num" title="The epoch of the assignment the member holds">
              Epoch
            </th>
            <th>State</th>
            <th>Assigned</th>
            <th title={`What the coordinator wants it to hold at the assignment epoch (${assignmentEpoch})`}>Target</th>
            <th>Pending revocation</th>
          </tr>
        </thead>
        <tbody>
          {sorted.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE).map((member) => {
            const assigned = (member.assignment as { partitions?: TopicPartitions[] } | null)?.partitions;
            const reconciled =
              member.memberEpoch === assignmentEpoch && key(assigned) === key(member.targetAssignment?.partitions);
            const regex = member.subscribedTopicRegex;
            return (
              <tr key={member.memberId} data-member={member.memberId} class={reconciled ? '' : 'reconciling'}>
                <td class="mono">
                  {member.memberId}
                  {member.groupInstanceId && (
                    <span class="tag" title="static member (group.instance.id)">
                      {member.groupInstanceId}
                    </span>
                  )}
                </td>
                <td>{member.clientId}</td>
                <td>
                  {(member.subscribedTopicNames ?? []).join(', ') || (regex ? '' : '—')}
                  {regex && <span class="tag mono">/{regex}/</span>}
                </td>
                <td class="num member-epoch">{member.memberEpoch}</td>
                <td class="member-state" title={MEMBER_STATE_HELP[member.memberState ?? 'UNKNOWN']}>
                  {member.memberState}
                </td>
                <td class="assignment">
                  <Partitions list={assigned} none="nothing" />
                </td>
                <td class="target">
                  <Partitions list={member.targetAssignment?.partitions} none="nothing" />
                </td>
                <td class="pending-revocation">
                  <Partitions list={member.partitionsPendingRevocation} none="—" />
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
