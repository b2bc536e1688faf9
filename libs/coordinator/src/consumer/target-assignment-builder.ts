import type { LogRecord } from '@cohort/replication';
import type { ConsumerAssignorMemberSpec, ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import type { ConsumerGroupMember } from './consumer-group-member';
import { regexTopicsOf } from './regex-access';
import { subscribedNameList } from './subscribed-name-list';
import { targetAssignmentEpochRecord, targetAssignmentRecord } from './consumer-records';
import {
  fromAssignedList,
  NO_PARTITIONS,
  samePartitions,
  toTopicPartitionList,
  type TopicPartitions,
} from './topic-partitions';

export interface TargetAssignmentResult {
  /** A TargetAssignmentMember record per member whose target changed, then the TargetAssignmentMetadata epoch. */
  records: LogRecord[];
  /** Every member's new target (empty when the assignor gave it nothing). */
  targetAssignment: Map<string, TopicPartitions>;
  /** The members whose target changed (those with a record). */
  changed: string[];
}

/**
 * Computes a consumer group's new target assignment (Kafka's `TargetAssignmentBuilder`): the group's
 * members with this heartbeat's change applied (a member added, updated or removed), each with its
 * subscription and current target, go to the server assignor; the result is diffed against the
 * current targets so only changed members get a record, and the assignment epoch moves to the group
 * epoch. A static member that replaces a departed one starts from its predecessor's target, so a
 * sticky assignor gives it the same partitions.
 */
export class TargetAssignmentBuilder {
  private members: ReadonlyMap<string, ConsumerGroupMember> = new Map();
  private staticMembers: ReadonlyMap<string, string> = new Map();
  private targetAssignment: ReadonlyMap<string, TopicPartitions> = new Map();
  private subscriptionMetadata: Record<string, number> = {};
  private resolvedRegularExpressions: ReadonlyMap<string, ReadonlySet<string>> = new Map();
  /** memberId → the member after this change, or null when it leaves. */
  private readonly updatedMembers = new Map<string, ConsumerGroupMember | null>();

  constructor(
    private readonly groupId: string,
    private readonly groupEpoch: number,
    private readonly assignor: ConsumerGroupAssignorPort,
  ) {}

  withMembers(members: ReadonlyMap<string, ConsumerGroupMember>): this {
    this.members = members;
    return this;
  }

  /** instance id → member id, for static members taking over from a departed one. */
  withStaticMembers(staticMembers: ReadonlyMap<string, string>): this {
    this.staticMembers = staticMembers;
    return this;
  }

  withTargetAssignment(targetAssignment: ReadonlyMap<string, TopicPartitions>): this {
    this.targetAssignment = targetAssignment;
    return this;
  }

  /** The subscribed topics that exist, with their partition counts. */
  withSubscriptionMetadata(partitionsPerTopic: Record<string, number>): this {
    this.subscriptionMetadata = partitionsPerTopic;
    return this;
  }

  withResolvedRegularExpressions(resolved: ReadonlyMap<string, ReadonlySet<string>>): this {
    this.resolvedRegularExpressions = resolved;
    return this;
  }

  addOrUpdateMember(memberId: string, member: ConsumerGroupMember): this {
    this.updatedMembers.set(memberId, member);
    return this;
  }

  removeMember(memberId: string): this {
    this.updatedMembers.set(memberId, null);
    return this;
  }

  /** Runs the assignor; whatever it throws (a plugin's bug, an impossible input) is the caller's to map. */
  build(now: number): TargetAssignmentResult {
    // Each member's target as it stands, when memberSpecs looked it up already (a Map's lookup of an id
    // is not free at 10,000 members): undefined for a member without one.
    const previousTargets: (TopicPartitions | undefined)[] | null = this.updatedMembers.size === 0 ? [] : null;
    const specs = previousTargets !== null ? this.memberSpecs(previousTargets) : [...this.updatedSpecs().values()];

    const group = { members: specs };
    const cluster = { partitionsPerTopic: { ...this.subscriptionMetadata } };
    // Each member's target at its index in specs when the assignor can give them so, else by member id.
    const targets = this.assignor.assignTargets?.(group, cluster) ?? null;
    const assigned = targets === null ? this.assignor.assign(group, cluster) : null;

    const records: LogRecord[] = [];
    const changed: string[] = [];
    const targetAssignment = new Map<string, TopicPartitions>();
    for (let i = 0; i < specs.length; i++) {
      const { memberId } = specs[i];
      const entries =
        targets !== null
          ? targets[i]
          : Object.prototype.hasOwnProperty.call(assigned, memberId)
            ? (assigned as NonNullable<typeof assigned>)[memberId]
            : undefined;
      const previous = previousTargets !== null ? previousTargets[i] : this.targetAssignment.get(memberId);
      const next = entries ? fromAssignedList(entries, previous) : NO_PARTITIONS;
      targetAssignment.set(memberId, next);
      // A member without a target yet always gets a record, even an empty one.
      if (previous === undefined || !samePartitions(previous, next)) {
        records.push(targetAssignmentRecord(this.groupId, memberId, next, now));
        changed.push(memberId);
      }
    }
    records.push(targetAssignmentEpochRecord(this.groupId, this.groupEpoch, now));
    return { records, targetAssignment, changed };
  }

  /** Every member as it stands, in the group's order (no change of this heartbeat to apply: a batch's target). */
  private memberSpecs(previousTargets: (TopicPartitions | undefined)[]): ConsumerAssignorMemberSpec[] {
    const specs = new Array<ConsumerAssignorMemberSpec>(this.members.size);
    let i = 0;
    for (const member of this.members.values()) {
      const previous = this.targetAssignment.get(member.memberId);
      previousTargets.push(previous);
      specs[i++] = this.memberSpec(member, previous ?? NO_PARTITIONS);
    }
    return specs;
  }

  /** The members with this heartbeat's change: an updated member keeps its place, a new one comes last, a removed one goes. */
  private updatedSpecs(): Map<string, ConsumerAssignorMemberSpec> {
    const specs = new Map<string, ConsumerAssignorMemberSpec>();
    for (const [memberId, member] of this.members) {
      specs.set(memberId, this.memberSpec(member, this.targetAssignment.get(memberId) ?? NO_PARTITIONS));
    }
    for (const [memberId, member] of this.updatedMembers) {
      if (member === null) {
        specs.delete(memberId);
        continue;
      }
      let assignment = this.targetAssignment.get(memberId) ?? NO_PARTITIONS;
      // A new static member replacing a departed one starts from the departed member's target.
      if (member.instanceId !== null) {
        const previous = this.staticMembers.get(member.instanceId);
        if (previous !== undefined && previous !== memberId)
          assignment = this.targetAssignment.get(previous) ?? NO_PARTITIONS;
      }
      specs.set(memberId, this.memberSpec(member, assignment));
    }
    return specs;
  }

  /** The member as the assignor sees it; a member subscribed by names shares its subscription's list of names. */
  private memberSpec(member: ConsumerGroupMember, assignment: TopicPartitions): ConsumerAssignorMemberSpec {
    if (member.subscribedTopicRegex !== '' || assignment.size === 0) return this.newMemberSpec(member, assignment);
    // Made from the member's target (a map of its own, never changed once made) and the fields below:
    // the same spec while they stay, so a target computed for a big group, whose members moved to a new
    // epoch since the last one (new member objects, the same targets), makes specs only for those whose
    // target or subscription changed.
    const kept = keptSpecs.get(assignment);
    if (
      kept !== undefined &&
      kept.names === member.subscribedTopicNames &&
      kept.spec.memberId === member.memberId &&
      kept.spec.instanceId === member.instanceId &&
      kept.spec.rackId === member.rackId
    )
      return kept.spec;
    const spec = Object.freeze(this.newMemberSpec(member, assignment));
    keptSpecs.set(assignment, { names: member.subscribedTopicNames, spec });
    return spec;
  }

  private newMemberSpec(member: ConsumerGroupMember, assignment: TopicPartitions): ConsumerAssignorMemberSpec {
    return {
      memberId: member.memberId,
      instanceId: member.instanceId,
      rackId: member.rackId,
      subscribedTopics:
        member.subscribedTopicRegex === ''
          ? subscribedNameList(member.subscribedTopicNames)
          : subscribedTopicNames(member, this.resolvedRegularExpressions),
      assignment: toTopicPartitionList(assignment),
    };
  }
}

/** The last spec made per target, for a member subscribed by names (the set of names it was made with). */
const keptSpecs = new WeakMap<TopicPartitions, { names: ReadonlySet<string>; spec: ConsumerAssignorMemberSpec }>();

/** The member's topic names, with the topics its resolved regex matched (Kafka's union of the two). */
export function subscribedTopicNames(
  member: ConsumerGroupMember,
  resolved: ReadonlyMap<string, ReadonlySet<string>>,
): string[] {
  const names = [...member.subscribedTopicNames];
  if (member.subscribedTopicRegex === '') return names;
  const matched = regexTopicsOf(member, resolved);
  if (!matched) return names;
  const seen = new Set(names);
  for (const topic of matched) if (!seen.has(topic)) names.push(topic);
  return names;
}
