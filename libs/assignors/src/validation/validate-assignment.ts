/**
 * Checks an assignor's result against its input: every member present and no one else, every
 * assigned partition exists and is subscribed by its member, none assigned twice, every subscribed
 * partition assigned, and under the cooperative protocol no partition revoked from one member and
 * given to another in the same round (ConsumerCoordinator.validateCooperativeAssignment). Under the
 * cooperative protocol a partition may stay unassigned while a member still owns it: that is how a
 * cooperative assignor moves it (revoke now, assign in the follow-up round).
 */
import type { ClusterView, MemberSubscription, RebalanceProtocol } from '../api/partition-assignor';
import { getOwn } from '../common/own-property';

export interface AssignmentValidationOptions {
  protocol?: RebalanceProtocol;
  /** At most this many violations are described (default 20); the count is always exact. */
  maxViolations?: number;
}

export interface AssignmentValidation {
  valid: boolean;
  violationCount: number;
  violations: string[];
}

/** Built only for a report: a result can hold a million partitions. */
function partitionName(topic: string, partition: unknown): string {
  return `${topic}-${String(partition)}`;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function validateAssignment(
  cluster: ClusterView,
  members: readonly MemberSubscription[],
  result: unknown,
  options: AssignmentValidationOptions = {},
): AssignmentValidation {
  const limit = options.maxViolations ?? 20;
  const violations: string[] = [];
  let violationCount = 0;
  const report = (message: string): void => {
    violationCount++;
    if (violations.length < limit) violations.push(message);
  };
  const done = (): AssignmentValidation => ({ valid: violationCount === 0, violationCount, violations });
  if (!isPlainObject(result)) {
    report(
      `the result must be an object of member id → { partitions }, got ${result === null ? 'null' : Array.isArray(result) ? 'an array' : typeof result}`,
    );
    return done();
  }

  // Partition ids over every topic of the cluster view.
  const topicIndex = new Map<string, number>();
  const base: number[] = [0];
  const counts: number[] = [];
  for (const [topic, count] of Object.entries(cluster.partitionsPerTopic)) {
    topicIndex.set(topic, counts.length);
    counts.push(count);
    base.push(base[base.length - 1] + count);
  }
  const holder = new Int32Array(base[base.length - 1]).fill(-1);
  const memberIndex = new Map(members.map((member, m) => [member.memberId, m] as const));

  for (const key of Object.keys(result)) if (!memberIndex.has(key)) report(`member '${key}' is not in the group`);
  // Large groups mostly share a few subscriptions: one Set per distinct topic list.
  const subscriptionSets = new Map<string, Set<string>>();
  const setsByArray = new Map<readonly string[], Set<string>>(); // members often share one topic list
  const subscribedSet = (topics: readonly string[]): Set<string> => {
    let set = setsByArray.get(topics);
    if (set) return set;
    const key = topics.join('\u0000');
    set = subscriptionSets.get(key);
    if (!set) {
      set = new Set(topics);
      subscriptionSets.set(key, set);
    }
    setsByArray.set(topics, set);
    return set;
  };
  // Plain indexed loops from here on: at a million partitions, iterator and callback overhead per
  // entry is most of the cost.
  for (let m = 0; m < members.length; m++) {
    const member = members[m];
    const entry = getOwn(result, member.memberId);
    if (entry === undefined) {
      report(`member '${member.memberId}' has no assignment (every member needs one, possibly empty)`);
      continue;
    }
    if (!isPlainObject(entry) || !Array.isArray(entry.partitions)) {
      report(`member '${member.memberId}': assignment must be { partitions: [{ topic, partitions }] }`);
      continue;
    }
    const subscribed = subscribedSet(member.subscription.topics);
    const items = entry.partitions as unknown[];
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      if (!isPlainObject(item) || typeof item.topic !== 'string' || !Array.isArray(item.partitions)) {
        report(`member '${member.memberId}': every entry must be { topic, partitions: number[] }`);
        continue;
      }
      const topic = item.topic;
      const partitions = item.partitions as unknown[];
      const t = topicIndex.get(topic);
      const isSubscribed = subscribed.has(topic);
      for (let k = 0; k < partitions.length; k++) {
        const p = partitions[k];
        if (t === undefined || typeof p !== 'number' || !Number.isInteger(p) || p < 0 || p >= counts[t]) {
          report(`member '${member.memberId}' is assigned ${partitionName(topic, p)}, which does not exist`);
          continue;
        }
        if (!isSubscribed)
          report(
            `member '${member.memberId}' is assigned ${partitionName(topic, p)} but does not subscribe to '${topic}'`,
          );
        const id = base[t] + p;
        if (holder[id] >= 0)
          report(
            `${partitionName(topic, p)} is assigned twice (to '${members[holder[id]].memberId}' and '${member.memberId}')`,
          );
        else holder[id] = m;
      }
    }
    if ('userData' in entry && entry.userData !== undefined) {
      try {
        JSON.stringify(entry.userData);
      } catch {
        report(`member '${member.memberId}': userData must be JSON-serializable`);
      }
    }
  }

  // Previously owned partitions, for the cooperative rules.
  const ownedBy = new Int32Array(holder.length).fill(-1);
  const ownedTwice = new Uint8Array(holder.length);
  for (let m = 0; m < members.length; m++) {
    const owned = members[m].subscription.ownedPartitions ?? [];
    for (let i = 0; i < owned.length; i++) {
      const t = topicIndex.get(owned[i].topic);
      if (t === undefined) continue;
      const partitions = owned[i].partitions;
      for (let k = 0; k < partitions.length; k++) {
        const p = partitions[k];
        if (p >= counts[t]) continue;
        const id = base[t] + p;
        if (ownedBy[id] >= 0 && ownedBy[id] !== m) ownedTwice[id] = 1;
        ownedBy[id] = m;
      }
    }
  }
  const cooperative = options.protocol === 'cooperative';
  const subscribedTopics = new Set<string>();
  for (const member of members) subscribedSet(member.subscription.topics);
  for (const set of subscriptionSets.values()) for (const topic of set) subscribedTopics.add(topic);
  for (const [topic, t] of topicIndex) {
    if (!subscribedTopics.has(topic)) continue;
    for (let p = 0; p < counts[t]; p++) {
      const id = base[t] + p;
      if (holder[id] < 0 && !(cooperative && ownedBy[id] >= 0))
        report(`${topic}-${p} is subscribed but assigned to nobody`);
    }
  }
  if (cooperative) {
    const owns = (m: number, topic: string, p: number): boolean =>
      (members[m].subscription.ownedPartitions ?? []).some(
        (item) => item.topic === topic && item.partitions.includes(p),
      );
    for (const [topic, t] of topicIndex) {
      for (let p = 0; p < counts[t]; p++) {
        const id = base[t] + p;
        const newOwner = holder[id];
        if (newOwner < 0 || ownedBy[id] < 0) continue;
        // Added to newOwner (it did not own it) while revoked from its owner: moved in one round.
        const movedFromSingleOwner = ownedBy[id] !== newOwner && ownedTwice[id] === 0;
        if (movedFromSingleOwner || (ownedTwice[id] === 1 && !owns(newOwner, topic, p))) {
          report(
            `${topic}-${p} moves to '${members[newOwner].memberId}' in the same round as it is revoked, which the cooperative protocol forbids`,
          );
        }
      }
    }
  }
  return done();
}
