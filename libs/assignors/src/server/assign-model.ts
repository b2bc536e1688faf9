/**
 * The uniform assignment of a group model (group-model.ts), read afresh or patched from a kept one
 * (kept-uniform-group.ts): the homogeneous or heterogeneous builder, then each member's target as the
 * wire's entries, in the order Kafka's record lists them. Its own file so that the assignor
 * (uniform-assignor.ts) and the kept group both use it without importing each other.
 */
import type { TopicPartitions } from '@cohort/protocol';
import { prototypeKeys, setOwn } from '../common/own-property';
import type { ConsumerGroupAssignment, ConsumerGroupTargets } from './consumer-group-assignor';
import { subscribedTopicsInJavaOrder, type GroupModel, type ModelMember } from './group-model';
import { freshOneTopicTarget as importedFreshOneTopic } from './fresh-target';
import { freshSmallTarget as importedFreshSmall } from './fresh-small-target';
import { FreshHomogeneousDeal } from './fresh-homogeneous';
import type { TargetLog } from './member-target-log';
import { keptWire } from './owned-target-reading';
import { TargetReplay } from './target-replay';
import { assignHeterogeneous } from './uniform-heterogeneous';
import { assignHomogeneous } from './uniform-homogeneous';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, here one per member.
const freshOneTopicTarget = importedFreshOneTopic;
const freshSmallTarget = importedFreshSmall;

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
      // A copy, frozen with the entries (keptWire): whoever receives the wire may keep it, knowing
      // nothing changes it (the coordinator reads an unchanged target's wire back only once).
      wire[i] = original ?? {
        topic: model.topics[topic].name,
        partitions: Object.freeze(partitions.slice()) as number[],
      };
    }
    return wire;
  };
  return keptWire(entries, build) ?? build();
}

/** The uniform assignment of a group read as `model` (afresh, or patched from a kept one), as a record. */
export function assignModel(model: GroupModel): ConsumerGroupAssignment {
  return targetRecord(model, assignModelTargets(model));
}

/**
 * The uniform assignment of `model` as ConsumerGroupTargets: each member's new target at its index in
 * the spec (what the coordinator reads, member by member in the spec's order).
 */
export function assignModelTargets(model: GroupModel): ConsumerGroupTargets {
  const members = model.members;
  if (model.kept !== undefined) model.kept.changed.length = 0;
  let log: TargetLog | null = null;
  if (members.length > 0) {
    if (model.homogeneous) {
      const topicOrder = subscribedTopicsInJavaOrder(members[0], model.table);
      // No owners: no member holds anything (the uniform assignor never reads shared targets).
      if (topicOrder.length > 0 && model.owners === null)
        return dealtAssignment(model, new FreshHomogeneousDeal(model, topicOrder));
      if (topicOrder.length > 0) log = assignHomogeneous(model, topicOrder);
    } else log = assignHeterogeneous(model);
  }
  const targets: ConsumerGroupTargets = new Array<TopicPartitions[]>(members.length);
  // Kafka returns an empty map when the group subscribes to no topic: every member gets nothing.
  const replay = log === null ? null : new TargetReplay(model.topics, log, model.owners, model.ownerIds);
  for (let m = 0; m < members.length; m++) {
    let wire: TopicPartitions[] | null = null;
    if (log === null) wire = [];
    else if (log.copied[m] === 1) {
      const member = members[m];
      const fresh =
        member.owned.length === 0
          ? (freshOneTopicTarget(log, m, model.topics) ?? freshSmallTarget(log, m, model.topics))
          : undefined;
      wire = fresh ?? (replay as TargetReplay).replay(m, member.owned);
    }
    setMemberTarget(model, m, wire, targets);
  }
  return targets;
}

/**
 * assignModelTargets' loop for a fresh homogeneous deal, a loop of its own: the general loop, compiled with
 * the readers of the log inlined, would lose some of them to the deal's code.
 */
function dealtAssignment(model: GroupModel, deal: FreshHomogeneousDeal): ConsumerGroupTargets {
  const { members, topics } = model;
  const log = deal.log;
  const replay = new TargetReplay(topics, log, model.owners, model.ownerIds);
  const targets: ConsumerGroupTargets = new Array<TopicPartitions[]>(members.length);
  for (let m = 0; m < members.length; m++) {
    // A run of one topic, or null (the member gets nothing); undefined: its run was logged.
    let wire = deal.directTarget(m);
    if (wire === undefined)
      wire =
        freshOneTopicTarget(log, m, topics) ?? freshSmallTarget(log, m, topics) ?? replay.replay(m, members[m].owned);
    setMemberTarget(model, m, wire, targets);
  }
  return targets;
}

/**
 * Member `m`'s entry of `targets` (at its index in the spec): `wire`, or when it is null (the member's
 * target did not change) the entries it had. A kept model keeps the entries of each unchanged member,
 * read in order here instead of from each member's objects, scattered over the heap.
 */
function setMemberTarget(
  model: GroupModel,
  m: number,
  wire: TopicPartitions[] | null,
  targets: ConsumerGroupTargets,
): void {
  const kept = model.kept;
  if (wire !== null && kept !== undefined) kept.changed.push(m);
  let target = wire ?? kept?.wires[m];
  if (target === undefined) {
    target = toWire(model, model.members[m]);
    if (kept !== undefined) kept.wires[m] = target;
  }
  targets[model.specIndex[m]] = target;
}

/**
 * `targets` as ConsumerGroupAssignment's record, keyed in the member map's order (Kafka's). Building a
 * record of 10,000 keys costs more than the assignment it holds (about 3 ms, 270 ns a key), which is
 * why the coordinator asks for the targets instead (ConsumerGroupAssignor.assignTargets).
 */
export function targetRecord(model: GroupModel, targets: ConsumerGroupTargets): ConsumerGroupAssignment {
  const assignment: ConsumerGroupAssignment = {};
  const reserved = prototypeKeys();
  const { members, specIndex, memberIds } = model;
  for (let m = 0; m < members.length; m++) {
    const memberId = memberIds[specIndex[m]];
    const target = targets[specIndex[m]];
    if (reserved.has(memberId)) setOwn(assignment, memberId, target);
    else assignment[memberId] = target;
  }
  return assignment;
}
