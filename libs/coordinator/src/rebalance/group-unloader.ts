import { ErrorCode } from '@cohort/protocol';
import { joinError, syncError } from '../responses/group-responses';
import type { GroupRegistry } from '../group/group-registry';
import type { ShardEnv } from '../context/shard-env';

/**
 * Kafka's `onGroupUnloaded`: when this node stops leading the partition, every group goes Dead, every
 * parked JoinGroup and SyncGroup is answered NOT_COORDINATOR, and (docs/protocol.md) members are told that the
 * coordinator moved so they look it up again.
 */
export class GroupUnloader {
  constructor(
    private readonly partition: number,
    private readonly groups: GroupRegistry,
    private readonly env: Pick<ShardEnv, 'clock' | 'push' | 'logger'>,
  ) {}

  unloadAll(): void {
    const message = `this node no longer coordinates __consumer_offsets-${this.partition}`;
    for (const group of this.groups.values()) {
      group.transitionTo('Dead', this.env.clock.now());
      group.pendingJoin = null;
      group.offsets.clearStaged();
      const members = group.allMembers();
      group.parked.failAll(
        members,
        (member) => joinError(member.memberId, ErrorCode.NOT_COORDINATOR, message),
        () => syncError(ErrorCode.NOT_COORDINATOR, message),
      );
      const connectionIds = new Set<string>();
      for (const member of members) if (member.connectionId !== undefined) connectionIds.add(member.connectionId);
      if (connectionIds.size === 0) continue;
      try {
        this.env.push.coordinatorMoved([...connectionIds], { groupId: group.groupId });
      } catch (error) {
        this.env.logger.warn(`CoordinatorMoved push for group ${group.groupId} failed: ${String(error)}`);
      }
    }
  }
}
