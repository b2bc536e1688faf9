/**
 * Kafka's `UniformAssignor` ("uniform", group-coordinator module, Kafka's default server assignor):
 * balanced, then sticky. A homogeneous group (every member subscribes to the same topics) goes to the
 * homogeneous builder, any other to the heterogeneous one. Where Kafka's result depends on Java's
 * iteration orders — the member map, the set of topic ids, each member's current target — those orders
 * are reproduced (group-model.ts, java-hash-table.ts, assignment-shape.ts), so the same group gives the
 * same assignment as Kafka, and each member's entries come out in the order Kafka's record lists them.
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ClusterView } from '../api/partition-assignor';
import { prototypeKeys, setOwn } from '../common/own-property';
import type { ConsumerGroupAssignment, ConsumerGroupAssignor, ConsumerGroupSpec } from './consumer-group-assignor';
import {
  readGroupModel,
  subscribedTopicsInJavaOrder,
  type GroupModel,
  type GroupModelOptions,
  type OwnedTopic,
} from './group-model';
import { assignHeterogeneous } from './uniform-heterogeneous';
import { assignHomogeneous, type MemberResult } from './uniform-homogeneous';

export const UNIFORM_ASSIGNOR_NAME = 'uniform';

function toWire(model: GroupModel, entries: readonly OwnedTopic[]): TopicPartitions[] {
  const wire = new Array<TopicPartitions>(entries.length);
  for (let i = 0; i < entries.length; i++) {
    const { topic, partitions, original } = entries[i];
    wire[i] = original ?? { topic: model.topics[topic].name, partitions };
  }
  return wire;
}

/** The uniform assignment of a group read with the given options (tests replay Kafka's own orders). */
export function uniformAssign(group: ConsumerGroupSpec, cluster: ClusterView, options: GroupModelOptions = {}) {
  const model = readGroupModel(group, cluster, options);
  let results: MemberResult[];
  if (model.members.length === 0) results = [];
  else if (model.homogeneous) {
    const topicOrder = subscribedTopicsInJavaOrder(model.members[0], model.table);
    results =
      topicOrder.length === 0
        ? model.members.map((member) => ({ entries: [], changed: member.owned.length > 0 }))
        : assignHomogeneous(model, topicOrder);
  } else results = assignHeterogeneous(model);
  const assignment: ConsumerGroupAssignment = {};
  const reserved = prototypeKeys();
  model.members.forEach((member, m) => {
    const wire = toWire(model, results[m].entries);
    if (reserved.has(member.memberId)) setOwn(assignment, member.memberId, wire);
    else assignment[member.memberId] = wire;
  });
  return assignment;
}

export function createUniformAssignor(): ConsumerGroupAssignor {
  return {
    name: UNIFORM_ASSIGNOR_NAME,
    assign: (group, cluster) => uniformAssign(group, cluster),
  };
}
