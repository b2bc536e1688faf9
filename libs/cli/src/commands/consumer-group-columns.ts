import type { GroupDescription, RebalanceRecord, TopicPartitions } from '@cohort/protocol';

/**
 * What `cohort groups` adds for consumer groups (Kafka 4's protocol, KIP-848), in the columns Kafka 4's
 * kafka-consumer-groups.sh --verbose uses where it has them: the group and target assignment epochs
 * with --state; each member's epoch, state, assignment, target and the partitions it must still give
 * up with --members; the epoch bumps with their reasons in `rebalances`.
 */

/** `orders:0,1;payments:2` (kafka-consumer-groups.sh's TopicPartition list); null (`-`) when empty. */
export function partitionList(partitions: readonly TopicPartitions[] | undefined): string | null {
  const text = (partitions ?? [])
    .filter((tp) => tp.partitions.length > 0)
    .map((tp) => `${tp.topic}:${[...tp.partitions].sort((a, b) => a - b).join(',')}`)
    .join(';');
  return text === '' ? null : text;
}

/** Groups with KIP-848 epochs: consumer groups, and share groups (KIP-932), whose members take their target at once. */
export const hasMemberEpochs = (group: GroupDescription): boolean =>
  group.type === 'consumer' || group.type === 'share';

/** Added to --state's columns when a consumer group is among those described. */
export const STATE_EPOCH_COLUMNS = ['GROUP-EPOCH', 'TARGET-ASSIGNMENT-EPOCH'];

export function stateEpochCells(group: GroupDescription): unknown[] {
  return hasMemberEpochs(group) ? [group.groupEpoch, group.assignmentEpoch] : [null, null];
}

/** Added to --members' columns when a consumer group is among those described. */
export const MEMBER_EPOCH_COLUMNS = [
  'CURRENT-EPOCH',
  'MEMBER-STATE',
  'CURRENT-ASSIGNMENT',
  'TARGET-EPOCH',
  'TARGET-ASSIGNMENT',
  'PENDING-REVOCATION',
];

export function memberEpochCells(group: GroupDescription, member: GroupDescription['members'][number]): unknown[] {
  if (!hasMemberEpochs(group)) return MEMBER_EPOCH_COLUMNS.map(() => null);
  const assignment = (member.assignment as { partitions?: TopicPartitions[] } | null)?.partitions;
  return [
    member.memberEpoch,
    member.memberState,
    partitionList(assignment),
    group.assignmentEpoch,
    partitionList(member.targetAssignment?.partitions),
    partitionList(member.partitionsPendingRevocation),
  ];
}

/** `groups rebalances` of a consumer group: one row per group epoch bump. */
export function epochHistoryTable(history: RebalanceRecord[]): { columns: string[]; rows: unknown[][] } {
  return {
    columns: ['GROUP-EPOCH', 'STARTED', 'CONVERGED-IN-MS', 'OUTCOME', 'MEMBERS', 'REASON', 'MEMBER-ID'],
    rows: history.map((r) => [
      r.groupEpoch,
      new Date(r.startedAt).toISOString(),
      r.durationMs,
      r.outcome,
      r.members,
      r.reason,
      r.memberId,
    ]),
  };
}
