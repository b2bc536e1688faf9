import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { ShareMembershipView, ShareTopicPartition } from '@cohort/coordinator/share/share-ports';
import { ShareAssignment } from '@cohort/coordinator/share/share-assignment';
import { SHARE_PARTITION_STATE_RECORD_TYPE } from '@cohort/coordinator/share/share-state-records';
import { CoordinatorHarness, type HarnessOptions } from './coordinator-harness';

/**
 * A share membership that assigns each member what a spec sets (`members`), for one group. A list is
 * read once (set a new one to change a member's assignment, as a heartbeat replaces it).
 */
export class FakeShareMembership implements ShareMembershipView {
  readonly members = new Map<string, ShareTopicPartition[]>();
  private readonly read = new WeakMap<ShareTopicPartition[], ShareAssignment>();

  constructor(private readonly groupId: string) {}

  assignedPartitions(groupId: string, memberId: string): ShareAssignment | number {
    if (groupId !== this.groupId) return ErrorCode.GROUP_ID_NOT_FOUND;
    const list = this.members.get(memberId);
    if (list === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    let assignment = this.read.get(list);
    if (assignment === undefined) this.read.set(list, (assignment = ShareAssignment.ofList(list)));
    return assignment;
  }
}

/**
 * A coordinator on virtual time holding share group `groupId`, created by a member that joined and left
 * (Empty), as it is wherever share partition state is written, so a restart serves that state (a load
 * deletes the state of a group that does not exist); the membership (a FakeShareMembership unless given)
 * is bound to the group's shard, and `bind` binds it again after a restart. ShareAcquire and
 * ShareAcknowledge go through the coordinator as a client sends them.
 */
export async function shareGroupHarness<M extends ShareMembershipView = FakeShareMembership>(
  groupId: string,
  options: HarnessOptions & { membership?: M } = {},
) {
  const h = new CoordinatorHarness(options);
  await h.settle();
  const subscribedTopicNames = [options.topics?.[0]?.name ?? 'orders'];
  await h.coordinator.shareGroupHeartbeat(
    { groupId, memberId: 'founder', memberEpoch: 0, subscribedTopicNames },
    h.context(),
  );
  await h.coordinator.shareGroupHeartbeat({ groupId, memberId: 'founder', memberEpoch: -1 }, h.context());
  const membership = (options.membership ?? new FakeShareMembership(groupId)) as M;
  const bind = () => (h.shardOf(groupId).sharePartitions.membership = membership);
  bind();
  const acquire = (memberId: string, request: Partial<P.ShareAcquireRequest> = {}) =>
    h.coordinator.shareAcquire({ groupId, memberId, maxRecords: 100, ...request }, h.context());
  const acknowledge = (memberId: string, acknowledgements: P.ShareAcknowledgeRequest['acknowledgements']) =>
    h.coordinator.shareAcknowledge({ groupId, memberId, acknowledgements }, h.context());
  /** The share partition state records of the group's partition of __consumer_offsets, oldest first. */
  const stateRecords = () =>
    h.store
      .records(h.partitionOf(groupId))
      .filter((r) => (JSON.parse(r.key.toString()) as unknown[])[0] === SHARE_PARTITION_STATE_RECORD_TYPE);
  return { h, membership, bind, acquire, acknowledge, stateRecords };
}
