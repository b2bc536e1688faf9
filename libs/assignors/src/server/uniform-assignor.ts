/**
 * Kafka's `UniformAssignor` ("uniform", group-coordinator module, Kafka's default server assignor):
 * balanced, then sticky. A homogeneous group (every member subscribes to the same topics) goes to the
 * homogeneous builder, any other to the heterogeneous one. Where Kafka's result depends on Java's
 * iteration orders — the member map, the set of topic ids, each member's current target — those orders
 * are reproduced (group-model.ts, java-hash-table.ts, target-replay.ts), so the same group gives the
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
  type ModelMember,
} from './group-model';
import { freshOneTopicTarget as importedFreshOneTopic } from './fresh-target';
import { freshSmallTarget as importedFreshSmall } from './fresh-small-target';
import type { TargetLog } from './member-target-log';
import { keptWire } from './owned-target-reading';
import { TargetReplay } from './target-replay';
import { assignHeterogeneous } from './uniform-heterogeneous';
import { assignHomogeneous } from './uniform-homogeneous';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, here one per member.
const freshOneTopicTarget = importedFreshOneTopic;
const freshSmallTarget = importedFreshSmall;

export const UNIFORM_ASSIGNOR_NAME = 'uniform';

/**
 * An unchanged member's target as the wire's entries: the member's own list when Java's order is its
 * order (every entry read back as given), so a stable member costs no new array; else the entries in
 * Java's order, kept with a list the coordinator froze for the next call that gets the same list.
 */
function toWire(model: GroupModel, member: ModelMember): TopicPartitions[] {
  const entries = member.owned;
  const given = member.spec.assignment;
  let same = entries.length === given.length;
  for (let i = 0; i < entries.length && same; i++) same = entries[i].original === given[i];
  if (same) return given as TopicPartitions[];
  const build = (): TopicPartitions[] => {
    const wire = new Array<TopicPartitions>(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const { topic, partitions, original } = entries[i];
      wire[i] = original ?? { topic: model.topics[topic].name, partitions };
    }
    return wire;
  };
  return keptWire(entries, build) ?? build();
}

/** The uniform assignment of a group read with the given options (tests replay Kafka's own orders). */
export function uniformAssign(group: ConsumerGroupSpec, cluster: ClusterView, options: GroupModelOptions = {}) {
  const model = readGroupModel(group, cluster, options);
  const members = model.members;
  let log: TargetLog | null = null;
  if (members.length > 0) {
    if (model.homogeneous) {
      const topicOrder = subscribedTopicsInJavaOrder(members[0], model.table);
      if (topicOrder.length > 0) log = assignHomogeneous(model, topicOrder);
    } else log = assignHeterogeneous(model);
  }
  const assignment: ConsumerGroupAssignment = {};
  const reserved = prototypeKeys();
  // Kafka returns an empty map when the group subscribes to no topic: every member gets nothing.
  const replay = log === null ? null : new TargetReplay(model.topics, log, model.owners);
  for (let m = 0; m < members.length; m++) {
    const member = members[m];
    let wire: TopicPartitions[] | null = null;
    if (log === null) wire = [];
    else if (log.copied[m] === 1) {
      const fresh =
        member.owned.length === 0
          ? (freshOneTopicTarget(log, m, model.topics) ?? freshSmallTarget(log, m, model.topics))
          : undefined;
      wire = fresh ?? (replay as TargetReplay).replay(m, member.owned);
    }
    if (wire === null) wire = toWire(model, member);
    if (reserved.has(member.memberId)) setOwn(assignment, member.memberId, wire);
    else assignment[member.memberId] = wire;
  }
  return assignment;
}

export function createUniformAssignor(): ConsumerGroupAssignor {
  return {
    name: UNIFORM_ASSIGNOR_NAME,
    assign: (group, cluster) => uniformAssign(group, cluster),
  };
}
