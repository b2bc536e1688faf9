import type { GroupDescription } from '@cohort/protocol';

/**
 * `cohort groups describe <share group>`: its share partitions instead of committed offsets (a share
 * group has none), kafka-share-groups.sh --describe's START-OFFSET first, then Cohort's end offset,
 * offsets by state and the oldest lease's age.
 */
export const SHARE_PARTITION_COLUMNS = [
  'GROUP',
  'TOPIC',
  'PARTITION',
  'START-OFFSET',
  'END-OFFSET',
  'AVAILABLE',
  'ACQUIRED',
  'ACKNOWLEDGED',
  'ARCHIVED',
  'OLDEST-LEASE-MS',
];

export function sharePartitionRows(group: GroupDescription): unknown[][] {
  return (group.sharePartitions ?? []).map((p) => [
    group.groupId,
    p.topic,
    p.partition,
    p.startOffset,
    p.endOffset,
    p.offsets.available,
    p.offsets.acquired,
    p.offsets.acknowledged,
    p.offsets.archived,
    p.oldestLeaseAgeMs,
  ]);
}
