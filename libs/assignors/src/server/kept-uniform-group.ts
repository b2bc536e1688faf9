/**
 * The uniform assignor's model of a homogeneous group (group-model.ts), kept between calls. A node
 * calls the assignor for a group again and again with the same members, nearly all with the very
 * target list the previous call got (the coordinator freezes a member's list and shares it until that
 * member's target changes). Reading such a group afresh walks every member's target and marks every
 * partition's owner; patching the kept model touches only the members that came, left or whose list
 * changed (owners are numbered per member, not by place, so a new member order renumbers none of
 * them). The patched model is the model readGroupModel would read: the same members in the same
 * (Java) order, the same readings of their targets, the same owners (under their own numbers).
 * Anything else — a topic's partition count changed or one appeared, a subscription that differs, a list not frozen
 * throughout, too many changes, two targets sharing a partition — reads the group afresh (which also
 * throws what a fresh read throws).
 */
import { javaStringHashCode, type TopicPartitions } from '@cohort/protocol';
import type { ClusterView } from '../api/partition-assignor';
import type { ConsumerGroupAssignment, ConsumerGroupSpec, ConsumerGroupTargets } from './consumer-group-assignor';
import { readGroupModel, readOwned, sameOrder, type GroupModel, type ModelMember } from './group-model';
import { frozenThroughout, isFrozenReading } from './owned-target-reading';
import { memberIdHashes, memberMapOrder } from './member-map-order';
import { assignModelTargets, targetRecord } from './assign-model';
import { expectedListing, sameListing } from './expected-listing';
import { clearOwned, markOwned, ownedTotal, subscribedFlags } from './kept-group-owners';
import { clusterTopics, sameCluster } from './kept-cluster';

interface KeptGroup {
  model: GroupModel;
  /** Every member's subscribed topic names, in the order every member gave them. */
  names: readonly string[];
  /** The topics of the cluster the model was read with (kept-cluster.ts). */
  topics: ReadonlySet<string>;
  /** The member ids in the order of the spec last assigned, and each one's index in model.members. */
  ids: readonly string[];
  modelIndexOfSpec: Int32Array;
  /** Per member of the spec last assigned: its id's Java hash (the member map's order follows from it). */
  idHashes: Int32Array;
  /**
   * Per member of model.members: the target list it was read from (frozen throughout), or, where
   * `expected` is 1, the listing of the target the last call gave it (keepResult), which the member
   * is read as holding.
   */
  lists: (readonly TopicPartitions[])[];
  expected: Uint8Array;
  /** Past every number model.owners holds for a member (GroupModel.ownerIds). */
  nextOwnerId: number;
}

export interface KeptUniformGroupOptions {
  /** Smaller groups are read afresh: keeping them costs more than it saves. */
  minMembers?: number;
  /** Groups kept at once (one assignor serves every group of a node), the oldest dropped first. */
  maxGroups?: number;
}

export class KeptUniformGroup {
  /** Keyed by the first member id of the spec last assigned (a node lists members oldest first). */
  private readonly groups = new Map<string, KeptGroup>();
  private readonly minMembers: number;
  private readonly maxGroups: number;
  /** Calls answered from a patched kept model (the rest read their group afresh). */
  patchedCalls = 0;

  constructor(options: KeptUniformGroupOptions = {}) {
    this.minMembers = Math.max(1, options.minMembers ?? 64);
    this.maxGroups = options.maxGroups ?? 8;
  }

  assign(group: ConsumerGroupSpec, cluster: ClusterView): ConsumerGroupAssignment {
    const { model, targets } = this.run(group, cluster);
    return targetRecord(model, targets);
  }

  /** The same assignment, each member's target at its index in the spec (ConsumerGroupTargets). */
  assignTargets(group: ConsumerGroupSpec, cluster: ClusterView): ConsumerGroupTargets {
    return this.run(group, cluster).targets;
  }

  private run(group: ConsumerGroupSpec, cluster: ClusterView): { model: GroupModel; targets: ConsumerGroupTargets } {
    const specs = group.members;
    if (specs.length < this.minMembers) {
      const fresh = readGroupModel(group, cluster);
      return { model: fresh, targets: assignModelTargets(fresh) };
    }
    const key = specs[0].memberId;
    const kept = this.groups.get(key);
    // Dropped first: a patch changes the kept model in place, and is kept again only when it succeeds.
    if (kept !== undefined) this.groups.delete(key);
    let model = kept === undefined ? null : patchModel(kept, group, cluster);
    let next: KeptGroup | null;
    if (model !== null) {
      this.patchedCalls++;
      next = kept as KeptGroup;
    } else {
      model = readGroupModel(group, cluster);
      // Kept before it is assigned, so the assignment fills in the entries of every member whose target
      // stays (model.kept.wires) and the builder knows what each holds: the next call, which patches
      // this model, hands those entries back instead of making them again for the whole group.
      next = keepable(model, group, cluster);
    }
    const targets = assignModelTargets(model);
    if (next !== null && !keepResult(next, targets)) next = null;
    if (next !== null) {
      if (this.groups.size >= this.maxGroups) this.groups.delete(this.groups.keys().next().value as string);
      this.groups.set(key, next);
    }
    return { model, targets };
  }
}

/** What to keep of a homogeneous group read from `group`, or null when it cannot be kept. */
function keepable(model: GroupModel, group: ConsumerGroupSpec, cluster: ClusterView): KeptGroup | null {
  const specs = group.members;
  if (!model.homogeneous || specs.length === 0) return null;
  const names = specs[0].subscribedTopics;
  // A caller that does not freeze its lists (not the coordinator) hands none that can be kept: known
  // from the first member, before anything is made for the rest.
  if (!isKeptList(specs[0].assignment)) return null;
  const lists = new Array<readonly TopicPartitions[]>(specs.length);
  const modelIndexOfSpec = new Int32Array(specs.length);
  const ownedTotals = new Int32Array(specs.length);
  const subscribed = subscribedFlags(model);
  for (let m = 0; m < model.members.length; m++) {
    const member = model.members[m];
    const spec = member.spec;
    // Compared by value at each call: the names must be the same list in the same order.
    if (!sameOrder(spec.subscribedTopics, names)) return null;
    if (!isKeptList(spec.assignment)) return null;
    lists[m] = spec.assignment;
    modelIndexOfSpec[model.specIndex[m]] = m;
    ownedTotals[m] = ownedTotal(member, subscribed);
  }
  model.kept = { wires: new Array<TopicPartitions[] | undefined>(specs.length), ownedTotals, changed: [] };
  const ids = model.memberIds;
  const idHashes = model.idHashes ?? memberIdHashes(ids);
  // A model read afresh numbers its owners by member index.
  return {
    model,
    // The caller's own list when nothing can change it (the coordinator shares one frozen list per
    // subscription): each member's list of the next call is then found equal by reference, not by a
    // compare of every name of every member.
    names: Object.isFrozen(names) ? names : names.slice(),
    topics: clusterTopics(cluster),
    ids,
    modelIndexOfSpec,
    idHashes,
    lists,
    expected: new Uint8Array(specs.length),
    nextOwnerId: specs.length,
  };
}

/** A list nothing can change, so the same list at a later call is the same target. */
function isKeptList(list: readonly TopicPartitions[]): boolean {
  if (list.length === 0) return Object.isFrozen(list);
  // Checked already when its reading was kept: a lookup instead of a walk of every partition.
  return isFrozenReading(list) || frozenThroughout(list);
}

/** What a call's members are to the kept model (matchMembers). */
interface Match {
  /** Per spec member: the kept member with its id and its list, else -1 (its target is read). */
  keptOf: Int32Array;
  /** Per spec member: its id's Java hash (the kept one for a kept member). */
  idHashes: Int32Array;
  /** Per kept member: 1 when its target is to be unmarked (it left, or its list changed). */
  unmark: Uint8Array;
  /** Some member's list is not empty (a fresh read would mark owners). */
  anyOwned: boolean;
}

/**
 * The spec's members matched to the kept ones by id, or null as soon as the group is to be read
 * afresh: a member subscribing otherwise, a changed list not frozen throughout, more than `limit`
 * members that came, left or changed their list.
 */
function matchMembers(kept: KeptGroup, specs: ConsumerGroupSpec['members'], limit: number): Match | null {
  const { ids, lists, names } = kept;
  const keptOf = new Int32Array(specs.length);
  const idHashes = new Int32Array(specs.length);
  const unmark = new Uint8Array(lists.length).fill(1);
  let byId: Map<string, number> | null = null;
  // No kept member was passed over: an id not next in line is not kept at all once every kept id was
  // met (a member that joined, appended to the member map), so no map of the ids is needed for it.
  let inLine = true;
  let changes = 0;
  let anyOwned = false;
  // The members whose list changed: each must be frozen throughout to be read into the kept model,
  // checked once the count of changes shows the patch is worth it (a walk of each list's partitions,
  // wasted on a group read afresh).
  const changed = new Int32Array(Math.min(specs.length, limit + 1));
  let j = 0;
  for (let s = 0; s < specs.length; s++) {
    const spec = specs[s];
    const id = spec.memberId;
    let k = -1;
    // Members keep their places in the spec (the coordinator's member map): walk both lists together.
    if (j < ids.length && ids[j] === id) {
      idHashes[s] = kept.idHashes[j];
      k = kept.modelIndexOfSpec[j++];
    } else if (inLine && j === ids.length) idHashes[s] = javaStringHashCode(id);
    else {
      inLine = false;
      if (byId === null) {
        byId = new Map();
        for (let i = 0; i < ids.length; i++) byId.set(ids[i], i);
      }
      const at = byId.get(id);
      if (at !== undefined) {
        idHashes[s] = kept.idHashes[at];
        k = kept.modelIndexOfSpec[at];
        j = at + 1;
      } else idHashes[s] = javaStringHashCode(id);
    }
    keptOf[s] = k;
    if (!sameOrder(spec.subscribedTopics, names)) return null;
    if (spec.assignment.length > 0) anyOwned = true;
    if (k !== -1 && (lists[k] === spec.assignment || isExpected(kept, k, spec.assignment))) unmark[k] = 0;
    else if (changes === limit) return null;
    else changed[changes++] = s;
  }
  const read = changes;
  for (let k = 0; k < lists.length; k++) if (unmark[k] === 1 && ++changes > limit) return null;
  for (let c = 0; c < read; c++) if (!isKeptList(specs[changed[c]].assignment)) return null;
  return { keptOf, idHashes, unmark, anyOwned };
}

/**
 * The kept model patched into the model of `group`, or null when the group must be read afresh.
 * Member ids are distinct here (memberMapOrder throws otherwise), so each kept member matches once.
 */
function patchModel(kept: KeptGroup, group: ConsumerGroupSpec, cluster: ClusterView): GroupModel | null {
  const { model } = kept;
  if (!sameCluster(model, kept.topics, cluster)) return null;
  const specs = group.members;
  const n = specs.length;
  const oldCount = model.members.length;
  // Up to as many changes as members (a changed member counts twice: unmarked, then read), i.e. at
  // most about half the members changed: a patch then reads fewer members than a fresh read, which
  // reads them all. The target a batch of joins made moves partitions away from many members (at the
  // end of forming 10,000, 1,000 of them besides the 500 that joined), so the join after it used to
  // read the whole group afresh when more than an eighth had changed.
  const match = matchMembers(kept, specs, Math.max(16, n));
  if (match === null) return null;
  const { keptOf, idHashes, unmark, anyOwned } = match;
  // Only now that the patch is worth it (a group that changed wholesale is read afresh at once).
  const ids = new Array<string>(n);
  for (let s = 0; s < n; s++) ids[s] = specs[s].memberId;
  const order = memberMapOrder(ids, idHashes);

  // Owners are numbered per member, not by place (GroupModel.ownerIds): a member that stays keeps its
  // number wherever the member map now puts it; the numbers of those that left or changed their list
  // are cleared from the owners and go to the members read now.
  const owners = model.owners ?? [];
  const oldIds = model.ownerIds;
  const freeIds: number[] = [];
  for (let k = 0; k < oldCount; k++) {
    if (unmark[k] === 0) continue;
    const id = oldIds === undefined ? k : oldIds[k];
    clearOwned(owners, model.members[k], id);
    freeIds.push(id);
  }
  const ownerIds = new Int32Array(n);

  const { table } = model;
  table.rebind(cluster);
  const subscribed = model.members[0].subscribed;
  const old = model.kept as NonNullable<GroupModel['kept']>;
  const members = new Array<ModelMember>(n);
  const newLists = new Array<readonly TopicPartitions[]>(n);
  const wires = new Array<TopicPartitions[] | undefined>(n);
  const ownedTotals = new Int32Array(n);
  let flags: Uint8Array | null = null;
  for (let m = 0; m < n; m++) {
    const spec = specs[order[m]];
    const k = keptOf[order[m]];
    newLists[m] = spec.assignment;
    if (k !== -1 && unmark[k] === 0) {
      // The kept member as it was read: its spec's list is this one (its other fields go unread).
      members[m] = model.members[k];
      ownerIds[m] = oldIds === undefined ? k : oldIds[k];
      // A target the last call gave: handed back as the caller's own list when read in its order, as
      // toWire would (the reading's entries are the listing's, not the caller's).
      wires[m] = kept.expected[k] === 1 ? listedAsRead(members[m], spec.assignment) : old.wires[k];
      ownedTotals[m] = old.ownedTotals[k];
      continue;
    }
    const owned = readOwned(spec, table, true, true);
    members[m] = { memberId: spec.memberId, instanceId: spec.instanceId ?? null, spec, subscribed, owned };
    const id = freeIds.pop() ?? kept.nextOwnerId++;
    ownerIds[m] = id;
    if (!markOwned(owners, members[m], id, model)) return null;
    while (owners.length < table.topics.length) owners.push(null);
    flags ??= subscribedFlags(model);
    ownedTotals[m] = ownedTotal(members[m], flags);
  }
  while (owners.length < table.topics.length) owners.push(null);

  model.members = members;
  model.owners = anyOwned ? owners : null;
  model.specIndex = order;
  model.memberIds = ids;
  model.ownerIds = ownerIds;
  model.kept = { wires, ownedTotals, changed: [] };
  // The model now reads `group`: what keepable keeps of it, without checking the kept lists again.
  const modelIndexOfSpec = new Int32Array(n);
  for (let m = 0; m < n; m++) modelIndexOfSpec[order[m]] = m;
  kept.ids = ids;
  kept.modelIndexOfSpec = modelIndexOfSpec;
  kept.idHashes = idHashes;
  kept.lists = newLists;
  kept.expected = new Uint8Array(n);
  return model;
}

/** `list` (a caller's) lists the target the last call gave kept member `k`: it is read as that target was. */
function isExpected(kept: KeptGroup, k: number, list: readonly TopicPartitions[]): boolean {
  return kept.expected[k] === 1 && sameListing(list, kept.lists[k]) && isKeptList(list);
}

/**
 * `list` itself when `member`'s reading of the same listing kept each of its entries in the listing's
 * order (toWire hands such a target back as given), else undefined (toWire makes its entries).
 */
function listedAsRead(member: ModelMember, list: readonly TopicPartitions[]): TopicPartitions[] | undefined {
  const owned = member.owned;
  if (owned.length !== list.length) return undefined;
  for (let i = 0; i < owned.length; i++) {
    const original = owned[i].original;
    if (original === undefined || original.topic !== list[i].topic) return undefined;
  }
  return list as TopicPartitions[];
}

/**
 * The kept model made the model of the group as the call left it: each member whose target changed is
 * read as holding its new target, as listed back (expectedListing), and the owners are theirs. The next
 * call, whose lists are mostly those listings (every member's, after a group formed), then patches only
 * what else changed instead of reading the whole group afresh. Work for the members whose target
 * changed only. False when the targets cannot be kept so (two sharing a partition: read afresh next).
 */
function keepResult(kept: KeptGroup, targets: ConsumerGroupTargets): boolean {
  const { model } = kept;
  const { members, specIndex } = model;
  const modelKept = model.kept as NonNullable<GroupModel['kept']>;
  const changed: number[] = [];
  const listings: (readonly TopicPartitions[])[] = [];
  // An unchanged member's target is the entry kept for it (setMemberTarget): only those given a new
  // one are read, a handful of 10,000 after a join.
  for (const m of modelKept.changed) {
    const target = targets[specIndex[m]];
    if (modelKept.wires[m] === target) continue;
    const listing = expectedListing(target);
    if (listing === null) continue;
    changed.push(m);
    listings.push(listing);
  }
  if (changed.length === 0) return true;
  const owners = model.owners ?? [];
  const ids = model.ownerIds;
  // Every old target unmarked before any new one is marked: a new target holds partitions another
  // changed member held before.
  for (const m of changed) clearOwned(owners, members[m], ids === undefined ? m : ids[m]);
  const flags = subscribedFlags(model);
  for (let i = 0; i < changed.length; i++) {
    const m = changed[i];
    const old = members[m];
    const spec = {
      memberId: old.spec.memberId,
      instanceId: old.spec.instanceId,
      rackId: old.spec.rackId,
      subscribedTopics: old.spec.subscribedTopics,
      assignment: listings[i],
    };
    const member: ModelMember = {
      memberId: old.memberId,
      instanceId: old.instanceId,
      spec,
      subscribed: old.subscribed,
      owned: readOwned(spec, model.table, true, false),
    };
    members[m] = member;
    if (!markOwned(owners, member, ids === undefined ? m : ids[m], model)) return false;
    modelKept.ownedTotals[m] = ownedTotal(member, flags);
    modelKept.wires[m] = undefined;
    kept.lists[m] = listings[i];
    kept.expected[m] = 1;
  }
  while (owners.length < model.table.topics.length) owners.push(null);
  model.owners = owners;
  return true;
}
