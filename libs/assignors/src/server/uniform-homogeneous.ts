/**
 * Kafka's `UniformHomogeneousAssignmentBuilder`: every member subscribes to the same topics. Each member
 * gets `partitions / members` partitions, the first `partitions % members` members in member-map order
 * one more; a member keeps what it owns up to that quota (walking its current target in Java's order)
 * and gives up the rest, and the partitions nobody keeps are dealt, in the order of the subscribed
 * topic set then partition number, to the members still under quota, in member order. The changes
 * are logged per member (TargetLog) and read back in Java's order by the caller.
 */
import { grownInt32 } from '../common/grown-int32';
import type { GroupModel } from './group-model';
import { TargetLog } from './member-target-log';

/**
 * `topicOrder`: the subscribed topics as Kafka's `HashSet<Uuid>` of the first member's subscription
 * iterates them (topics that exist only).
 */
export function assignHomogeneous(model: GroupModel, topicOrder: readonly number[]): TargetLog {
  const { members, topics, owners } = model;
  const subscribed = new Uint8Array(topics.length);
  let total = 0;
  for (const t of topicOrder) {
    subscribed[t] = 1;
    total += topics[t].partitions;
  }
  // Unassigned partitions as (topic, partition) pairs, in Kafka's order: isPartitionAssigned is
  // "held by any member's current target". Grown as they come: a stable group's join frees a handful
  // of a hundred thousand, and arrays sized for all of them cost more to allocate than to fill.
  const free = new PartitionPairs();
  for (const t of topicOrder) {
    const count = topics[t].partitions;
    const owner = owners === null ? null : owners[t];
    for (let p = 0; p < count; p++) if (owner === null || owner[p] === -1) free.push(t, p);
  }

  const memberCount = members.length;
  // Each unassigned partition is added once; revoked ones are removed and added (the log grows if need be).
  const log = new TargetLog(memberCount, new Int32Array(topics.length).fill(-1), free.length + 64);
  const minQuota = Math.floor(total / memberCount);
  let extra = total % memberCount;
  const unfilled = new Int32Array(memberCount);
  const ownedTotals = model.kept?.ownedTotals ?? null;
  const unfilledQuota = new Int32Array(memberCount);
  let unfilledCount = 0;

  // maybeRevokePartitions
  for (let m = 0; m < memberCount; m++) {
    let quota = minQuota;
    if (extra > 0) {
      quota++;
      extra--;
    }
    // A member keeping all it holds (the kept model knows how much that is) needs no walk of its target.
    if (ownedTotals !== null && ownedTotals[m] >= 0 && ownedTotals[m] <= quota) {
      quota -= ownedTotals[m];
      if (quota > 0) {
        unfilled[unfilledCount] = m;
        unfilledQuota[unfilledCount++] = quota;
      }
      continue;
    }
    const owned = members[m].owned;
    for (let i = 0; i < owned.length; i++) {
      const { topic, partitions } = owned[i];
      if (subscribed[topic] === 0) {
        log.removeTopic(m, topic);
      } else if (partitions.length <= quota) {
        quota -= partitions.length;
      } else {
        for (let k = 0; k < partitions.length; k++) {
          if (quota > 0) {
            quota--;
          } else {
            log.remove(m, topic, partitions[k]);
            free.push(topic, partitions[k]);
          }
        }
      }
    }
    if (quota > 0) {
      unfilled[unfilledCount] = m;
      unfilledQuota[unfilledCount++] = quota;
    }
  }

  // assignRemainingPartitions: an unfilled member's target is deep-copied even when nothing is left.
  let next = 0;
  for (let u = 0; u < unfilledCount; u++) {
    const m = unfilled[u];
    log.touch(m);
    const end = Math.min(next + unfilledQuota[u], free.length);
    for (; next < end; next++) log.add(m, free.topics[next], free.partitions[next]);
  }
  if (next < free.length) throw new Error('uniform assignor: partitions were left unassigned');
  return log;
}

/** (topic, partition) pairs in two arrays, grown as pairs come. */
class PartitionPairs {
  topics = new Int32Array(1024);
  partitions = new Int32Array(1024);
  length = 0;

  push(topic: number, partition: number): void {
    if (this.length === this.topics.length) {
      this.topics = grownInt32(this.topics);
      this.partitions = grownInt32(this.partitions);
    }
    this.topics[this.length] = topic;
    this.partitions[this.length++] = partition;
  }
}
