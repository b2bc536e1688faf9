import type { LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { decodeConsumerRecordKey } from '../consumer/consumer-records';
import type { ClassicMemberDeps } from './classic-member-deps';
import type { ConsumerGroup } from '../consumer/consumer-group';
import { MemberState } from '../consumer/member-state';

/**
 * SPEC's HeartbeatNow for a classic member's JoinGroup or LeaveGroup: once `result`'s records are
 * committed, the other members whose target they changed are told at once (a consumer-protocol member
 * heartbeats now, a classic one is pushed RebalanceInProgress), instead of at their next heartbeat; with
 * `released` (the group, when the member gave partitions up), so are the members waiting for partitions
 * that are free now.
 */
export function tellTargetsChanged<T>(
  deps: ClassicMemberDeps,
  groupId: string,
  except: string,
  result: CoordinatorResult<T>,
  records: readonly LogRecord[] = result.records,
  released: ConsumerGroup | null = null,
): void {
  const tell = new Set<string>();
  for (const record of records) {
    const key = decodeConsumerRecordKey(record.key);
    if (key?.type === 'consumer-group-target-assignment-member' && key.memberId !== except) tell.add(key.memberId);
  }
  if (released)
    for (const member of released.members.values())
      if (
        member.memberId !== except &&
        member.state === MemberState.UNRELEASED_PARTITIONS &&
        !released.waitingOnUnreleasedPartition(member)
      )
        tell.add(member.memberId);
  if (tell.size === 0) return;
  const applied = result.appendFuture;
  result.appendFuture = (outcome) => {
    applied?.(outcome);
    if (outcome.ok) deps.heartbeatNow(groupId, tell, 'target assignment changed');
  };
}
