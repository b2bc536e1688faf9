/**
 * Whether the cluster of a call still reads as the cluster a kept group model (kept-uniform-group.ts)
 * was read with. A name subscribed to that is no topic is not numbered by the model (group-model.ts's
 * existingTopics passes it over), so a topic created since under that name shows only as a topic the
 * kept call's cluster did not hold: the kept model remembers that cluster's topics.
 */
import type { ClusterView } from '../api/partition-assignor';
import type { GroupModel } from './group-model';

/** The topics of the cluster a model is kept from. */
export function clusterTopics(cluster: ClusterView): ReadonlySet<string> {
  return new Set(Object.keys(cluster.partitionsPerTopic));
}

/**
 * Every topic the kept model numbered has the same partition count (or is still absent) in `cluster`,
 * and `cluster` holds no topic that `kept` (the kept call's topics) lacks.
 */
export function sameCluster(model: GroupModel, kept: ReadonlySet<string>, cluster: ClusterView): boolean {
  const counts = cluster.partitionsPerTopic;
  for (const topic of model.topics) {
    const count = Object.prototype.hasOwnProperty.call(counts, topic.name) ? counts[topic.name] : -1;
    if (count !== topic.partitions) return false;
  }
  for (const name of Object.keys(counts)) if (!kept.has(name)) return false;
  return true;
}
