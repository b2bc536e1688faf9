import type { LogRecord } from '@cohort/replication';
import type { ShareAssignment } from './share-assignment';

/**
 * The seam between a share group's membership (ShareGroupHeartbeat, the share assignor: who may work
 * which partitions) and its share partitions (ShareAcquire/ShareAcknowledge: who holds which offsets).
 * Membership decides; the partitions obey. Both live in one coordinator shard, so every call is a
 * synchronous step on the event loop.
 */

export type { ShareTopicPartition } from './share-assignment';

/** Whether the caller may read a topic (READ TOPIC); a refused topic's partitions answer 29. */
export type TopicReadable = (topic: string) => boolean;

/** What the share partitions ask of membership before they lease or take acknowledgements. */
export interface ShareMembershipView {
  /**
   * The partitions assigned to the member, or a Kafka error code when it is no member of the group
   * (25 UNKNOWN_MEMBER_ID; 69 GROUP_ID_NOT_FOUND when the share group does not exist).
   */
  assignedPartitions(groupId: string, memberId: string): ShareAssignment | number;
}

/** What membership tells the share partitions when a member goes away. */
export interface ShareLeaseOwner {
  /**
   * The member left, was fenced, or its socket closed beyond the disconnect grace: its leases go back
   * at once (AVAILABLE, or ARCHIVED at the delivery limit) rather than at lock expiry.
   */
  releaseMember(groupId: string, memberId: string): void;
  /**
   * The group is being deleted: its share partitions go now; the tombstones of their state are
   * returned to be written with the group's, and `restore` brings them back if that write fails.
   */
  deleteGroup(groupId: string): { records: LogRecord[]; restore: () => void };
}
