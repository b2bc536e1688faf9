/**
 * Kafka's `UniformAssignor` ("uniform", group-coordinator module, Kafka's default server assignor):
 * balanced, then sticky. A homogeneous group (every member subscribes to the same topics) goes to the
 * homogeneous builder, any other to the heterogeneous one. Where Kafka's result depends on Java's
 * iteration orders — the member map, the set of topic ids, each member's current target — those orders
 * are reproduced (group-model.ts, java-hash-table.ts, target-replay.ts), so the same group gives the
 * same assignment as Kafka, and each member's entries come out in the order Kafka's record lists them.
 */
import type { ClusterView } from '../api/partition-assignor';
import { assignModel } from './assign-model';
import type { ConsumerGroupAssignor, ConsumerGroupSpec } from './consumer-group-assignor';
import { readGroupModel, type GroupModelOptions } from './group-model';
import { KeptUniformGroup } from './kept-uniform-group';

export const UNIFORM_ASSIGNOR_NAME = 'uniform';

/** The uniform assignment of a group read with the given options (tests replay Kafka's own orders). */
export function uniformAssign(group: ConsumerGroupSpec, cluster: ClusterView, options: GroupModelOptions = {}) {
  return assignModel(readGroupModel(group, cluster, options));
}

/**
 * The assignor a coordinator uses: it keeps the model of the homogeneous group it last assigned and
 * patches it for the next call that gives mostly the same members and targets (kept-uniform-group.ts).
 */
export function createUniformAssignor(): ConsumerGroupAssignor {
  const kept = new KeptUniformGroup();
  return {
    name: UNIFORM_ASSIGNOR_NAME,
    assign: (group, cluster) => kept.assign(group, cluster),
    assignTargets: (group, cluster) => kept.assignTargets(group, cluster),
  };
}
