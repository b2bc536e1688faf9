/**
 * A §5 plugin serving consumer groups: the coordinator computes the assignment with the plugin's
 * `assign`, each member's subscription carrying its current target as `ownedPartitions` (so a sticky
 * plugin stays sticky) and its rack. The plugin runs through the safe runner: its input is a copy,
 * and a result that is not a valid assignment (a partition twice, one not subscribed or not existing,
 * a member missing) is an AssignorError instead of a target. Consumer groups revoke before they
 * assign on their own, so the result is checked as an eager one.
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { getOwn, setOwn } from '../common/own-property';
import { runAssignor } from '../runner/run-assignor';
import type { ConsumerGroupAssignment, ConsumerGroupAssignor, ConsumerGroupSpec } from './consumer-group-assignor';

export function memberSubscriptionsOf(group: ConsumerGroupSpec): MemberSubscription[] {
  return group.members.map((member) => ({
    memberId: member.memberId,
    groupInstanceId: member.instanceId ?? null,
    subscription: {
      topics: [...member.subscribedTopics],
      ownedPartitions: member.assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] })),
      rackId: member.rackId ?? null,
    },
  }));
}

export function consumerGroupAssignorFromPlugin(plugin: PartitionAssignor): ConsumerGroupAssignor {
  return {
    name: plugin.name,
    assign(group: ConsumerGroupSpec, cluster: ClusterView): ConsumerGroupAssignment {
      const members = memberSubscriptionsOf(group);
      const result = runAssignor(plugin, cluster, members, {
        protocol: 'eager',
        unknownTopics: 'ignore',
        isolateInput: true,
      });
      const assignment: ConsumerGroupAssignment = {};
      for (const member of members) {
        const partitions: TopicPartitions[] = getOwn(result, member.memberId)?.partitions ?? [];
        setOwn(assignment, member.memberId, partitions);
      }
      return assignment;
    },
  };
}
