import { useState } from 'preact/hooks';
import type { GroupMember } from '../api/rest-types';
import { assignedPartitions, formatPartitions, subscribedTopics } from '../format';
import { PAGE_SIZE, Pager } from './pager';

/** Who is in the group and what each member holds, as DescribeGroups tells it; 50 members a page. */
export function MembersTable({ members, leader }: { members: GroupMember[]; leader: string | null }) {
  const [page, setPage] = useState(0);
  if (members.length === 0) return <p class="muted">No members: the group is not consuming.</p>;
  const sorted = [...members].sort(
    (a, b) => a.clientId.localeCompare(b.clientId) || a.memberId.localeCompare(b.memberId),
  );
  const current = Math.min(page, Math.max(0, Math.ceil(sorted.length / PAGE_SIZE) - 1));
  return (
    <>
      {sorted.length > PAGE_SIZE && <Pager page={current} total={sorted.length} onPage={setPage} />}
      <table class="members">
        <thead>
          <tr>
            <th>Member</th>
            <th>Client id</th>
            <th>Host</th>
            <th>Subscription</th>
            <th>Assignment</th>
          </tr>
        </thead>
        <tbody>
          {sorted.slice(current * PAGE_SIZE, (current + 1) * PAGE_SIZE).map((member) => {
            const assigned = assignedPartitions(member.assignment);
            const topics = subscribedTopics(member.subscription);
            return (
              <tr key={member.memberId} data-member={member.memberId}>
                <td class="mono">
                  {member.memberId}
                  {member.memberId === leader && <span class="tag">leader</span>}
                  {member.groupInstanceId && (
                    <span class="tag" title="static member (group.instance.id)">
                      {member.groupInstanceId}
                    </span>
                  )}
                </td>
                <td>{member.clientId}</td>
                <td class="mono">{member.clientHost}</td>
                <td>{topics ? topics.join(', ') : <span class="muted">—</span>}</td>
                <td class="assignment">
                  {assigned === null || assigned.length === 0 ? (
                    <span class="muted">nothing</span>
                  ) : (
                    assigned.map((entry) => (
                      <div key={entry.topic}>
                        <strong>{entry.topic}</strong>: {formatPartitions(entry.partitions)}
                      </div>
                    ))
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </>
  );
}
