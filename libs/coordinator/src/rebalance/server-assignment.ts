import type { MemberAssignment, Subscription, TopicPartitions } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import { parseSubscription } from '../group/protocol-metadata';
import type { ServerAssignor, ServerAssignorLookup } from '../ports/server-assignor.port';
import type { TopicRegistry } from '../ports/topic-registry.port';
import { jsonProblem } from '../validation/json-value';

export type ServerAssignmentResult =
  { ok: true; assignments: Map<string, MemberAssignment> } | { ok: false; message: string };

/**
 * The server-side assignor of a `consumer` group, when every member's last JoinGroup named the same
 * registered one (docs/protocol.md); null means the leader assigns, as in Kafka's classic protocol.
 */
export function agreedServerAssignor(group: ClassicGroup, assignors: ServerAssignorLookup): string | null {
  if (!group.isConsumerGroup) return null;
  let agreed: string | null = null;
  for (const member of group.allMembers()) {
    if (member.serverAssignor === null) return null;
    if (agreed === null) agreed = member.serverAssignor;
    else if (agreed !== member.serverAssignor) return null;
  }
  return agreed !== null && assignors.get(agreed) ? agreed : null;
}

/**
 * Runs the assignor over the members' subscriptions for the chosen protocol, with partition counts from
 * the topic registry, and checks what it returns: only members of the group, only topics the member
 * subscribes to and partitions that exist, no partition twice. Members it leaves out get no partitions.
 */
export function computeServerAssignment(
  assignor: ServerAssignor | undefined,
  name: string,
  group: ClassicGroup,
  protocol: string,
  topics: TopicRegistry,
): ServerAssignmentResult {
  if (!assignor) return { ok: false, message: `server assignor '${name}' is not registered` };
  const members: { memberId: string; groupInstanceId: string | null; subscription: Subscription }[] = [];
  // No prototype: a topic may legally be named `__proto__`.
  const partitionsPerTopic: Record<string, number> = Object.create(null) as Record<string, number>;
  for (const member of group.allMembers()) {
    const subscription = parseSubscription(member.metadata(protocol));
    if (!subscription) {
      return {
        ok: false,
        message: `member ${member.memberId} sent no consumer subscription for protocol '${protocol}'`,
      };
    }
    members.push({ memberId: member.memberId, groupInstanceId: member.groupInstanceId, subscription });
    for (const topic of subscription.topics) {
      if (topic in partitionsPerTopic) continue; // members mostly share their topics
      const count = topics.partitionCount(topic);
      if (count !== undefined) partitionsPerTopic[topic] = count;
    }
  }
  let raw: unknown;
  try {
    raw = assignor.assign({ partitionsPerTopic }, members);
  } catch (error) {
    return {
      ok: false,
      message: `server assignor '${name}' failed: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  const checked = checkAssignment(raw, members, partitionsPerTopic);
  if (typeof checked === 'string')
    return { ok: false, message: `server assignor '${name}' returned an invalid assignment: ${checked}` };
  return { ok: true, assignments: checked };
}

function checkAssignment(
  raw: unknown,
  members: { memberId: string; subscription: Subscription }[],
  partitionsPerTopic: Record<string, number>,
): Map<string, MemberAssignment> | string {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return 'expected an object keyed by member id';
  // Members usually share one topic list: one Set per distinct array.
  const setsByList = new Map<readonly string[], Set<string>>();
  const subscriptions = new Map<string, { index: number; topics: Set<string> }>();
  members.forEach((member, index) => {
    let topics = setsByList.get(member.subscription.topics);
    if (!topics) setsByList.set(member.subscription.topics, (topics = new Set(member.subscription.topics)));
    subscriptions.set(member.memberId, { index, topics });
  });
  // Per topic, the index of the member holding each partition (-1: nobody yet). Typed arrays rather
  // than a map of "topic-partition" strings: a large group holds a million partitions.
  const holders = new Map<string, Int32Array>();
  const out = new Map<string, MemberAssignment>();
  for (const [memberId, value] of Object.entries(raw as Record<string, unknown>)) {
    const subscribed = subscriptions.get(memberId);
    if (!subscribed) return `member '${memberId}' is not in the group`;
    if (value === null || typeof value !== 'object' || !Array.isArray((value as MemberAssignment).partitions)) {
      return `the assignment of '${memberId}' has no partitions array`;
    }
    const entries = (value as MemberAssignment).partitions as unknown[];
    const partitions: TopicPartitions[] = new Array<TopicPartitions>(entries.length);
    for (let i = 0; i < entries.length; i++) {
      const entry = (entries[i] ?? {}) as TopicPartitions;
      const { topic, partitions: indexes } = entry;
      if (typeof topic !== 'string' || !Array.isArray(indexes))
        return `'${memberId}' has an entry that is not { topic, partitions }`;
      if (!subscribed.topics.has(topic)) return `'${memberId}' got topic '${topic}' it does not subscribe to`;
      const count = partitionsPerTopic[topic];
      if (count === undefined) return `'${memberId}' got topic '${topic}', which does not exist`;
      let holder = holders.get(topic);
      if (!holder) holders.set(topic, (holder = new Int32Array(count).fill(-1)));
      for (let k = 0; k < indexes.length; k++) {
        const index = indexes[k];
        if (!Number.isInteger(index) || index < 0 || index >= count)
          return `'${memberId}' got ${topic}-${String(index)}, which does not exist`;
        if (holder[index] >= 0)
          return `${topic}-${index} is assigned to both '${members[holder[index]].memberId}' and '${memberId}'`;
        holder[index] = subscribed.index;
      }
      // A frozen entry cannot change under us (the built-ins return frozen, shared entries): keep it.
      partitions[i] = Object.isFrozen(entry) && Object.isFrozen(indexes) ? entry : { topic, partitions: [...indexes] };
    }
    const userData = (value as MemberAssignment).userData;
    const problem = jsonProblem(userData);
    if (problem !== null) return `the userData of '${memberId}' cannot be stored as JSON (${problem})`;
    out.set(memberId, userData === undefined ? { partitions } : { partitions, userData });
  }
  for (const member of members) if (!out.has(member.memberId)) out.set(member.memberId, { partitions: [] });
  return out;
}
