/**
 * The balancing half of the general sticky algorithm (GeneralAssignmentBuilder.balance and
 * performReassignments): place unassigned partitions on the least-loaded subscriber, set aside what
 * cannot move, then move partitions while the assignment is not balanced, and roll back if that did
 * not lower the balance score.
 */
import type { GroupInput } from '../common/group-input';
import type { LoadIndex } from './load-index';
import type { PartitionMovements } from './partition-movements';
import type { StickyRackInfo } from './sticky-rack-info';

export interface BalancerState {
  input: GroupInput;
  rack: StickyRackInfo;
  index: LoadIndex;
  owner: Int32Array;
  topicOf: Int32Array;
  consumersOfTopic: Int32Array;
  prevMember: Int32Array | null;
  movements: PartitionMovements;
  subscribes: (member: number, topic: number) => boolean;
}

/** Int32Array.filter with a callback is slow in V8; this is the plain loop. */
export function keepIf(ids: Int32Array, keep: (id: number) => boolean): Int32Array {
  const kept = new Int32Array(ids.length);
  let n = 0;
  for (let i = 0; i < ids.length; i++) if (keep(ids[i])) kept[n++] = ids[i];
  return kept.subarray(0, n);
}

export class GeneralBalancer {
  private readonly multiConsumerTopics: number[];
  /** (partition, previous owner) pairs of the moves made while balancing. */
  private undo: number[] | null = null;

  constructor(private readonly s: BalancerState) {
    this.multiConsumerTopics = [];
    s.consumersOfTopic.forEach((consumers, t) => {
      if (consumers >= 2) this.multiConsumerTopics.push(t);
    });
  }

  balance(unassigned: Int32Array, sortedAll: Int32Array, revocationRequired: boolean): void {
    const { index, owner, rack, topicOf, consumersOfTopic } = this.s;
    const initializing = index.maxLoad === 0;
    let toAssign: ArrayLike<number> = unassigned;
    if (rack.enabled) {
      const left: number[] = [];
      for (const id of unassigned) {
        const racks = rack.racksOf(id);
        const m = index.first(topicOf[id], (memberRack) => memberRack === null || racks.has(memberRack));
        if (m >= 0) this.assign(id, m);
        else left.push(id);
      }
      toAssign = left;
    }
    for (let i = 0; i < toAssign.length; i++) {
      const id = toAssign[i];
      this.assign(id, index.first(topicOf[id]));
    }

    // Narrow the scope to partitions and members that can actually move.
    const allMovable = this.multiConsumerTopics.length === consumersOfTopic.length;
    const movable = (id: number): boolean => consumersOfTopic[topicOf[id]] >= 2;
    const reassignableUnassigned = allMovable ? unassigned : keepIf(unassigned, movable);
    const reassignableAll = allMovable ? sortedAll : keepIf(sortedAll, movable);
    this.setAsideFixedMembers();

    // Moves are few: an undo log is enough to restore the assignment if they did not help.
    this.undo = [];
    const loadBefore = index.load.slice();
    if (!revocationRequired) this.performReassignments(reassignableUnassigned);
    const moved = this.performReassignments(reassignableAll);
    if (!initializing && moved && this.balanceScore(index.load) >= this.balanceScore(loadBefore)) {
      for (let i = this.undo.length - 2; i >= 0; i -= 2) owner[this.undo[i]] = this.undo[i + 1];
      index.resetLoads(loadBefore);
    }
    this.undo = null;
  }

  private assign(id: number, m: number): void {
    this.s.owner[id] = m;
    this.s.index.increment(m);
  }

  /** Members holding every partition they could have, none of them movable, take no part (Kafka's fixed assignments). */
  private setAsideFixedMembers(): void {
    const { input, index, owner, topicOf, consumersOfTopic } = this.s;
    const holdsMovable = new Uint8Array(input.members.length);
    for (let id = 0; id < owner.length; id++) {
      const m = owner[id];
      if (m >= 0 && consumersOfTopic[topicOf[id]] >= 2) holdsMovable[m] = 1;
    }
    input.members.forEach((member, m) => {
      let maxSize = 0;
      for (const t of member.topics) maxSize += input.topics.counts[t];
      if (index.load[m] < maxSize || holdsMovable[m] === 1) return;
      index.setAside(m);
    });
  }

  private performReassignments(partitions: Int32Array): boolean {
    const { index, owner, rack, topicOf, prevMember, subscribes } = this.s;
    const load = index.load;
    let performed = false;
    let modified: boolean;
    do {
      modified = false;
      for (let i = 0; i < partitions.length; i++) {
        if (this.isBalanced()) break;
        const id = partitions[i];
        const topic = topicOf[id];
        const current = owner[id];
        const previous = prevMember === null ? -1 : prevMember[id];
        // Deviations (quirk Q3 and an upstream bug): Kafka fails with a NullPointerException when the
        // previous owner was set aside, and hands the partition back even if that member no longer
        // subscribes to the topic; we skip the hand-back in both cases.
        if (
          previous >= 0 &&
          index.isParticipating(previous) &&
          subscribes(previous, topic) &&
          load[current] > load[previous] + 1
        ) {
          this.reassign(id, previous);
          performed = modified = true;
          continue;
        }
        let foundRackConsumer = false;
        if (rack.enabled) {
          const currentRack = rack.consumerRack[current];
          const racks = rack.racksOf(id);
          if (currentRack !== null && racks.size > 0 && racks.has(currentRack)) {
            const other = index.first(topic, (memberRack) => memberRack !== null && racks.has(memberRack));
            if (other >= 0 && load[current] > load[other] + 1) {
              this.reassign(id, index.first(topic));
              performed = modified = foundRackConsumer = true;
            }
          }
        }
        if (!foundRackConsumer) {
          const other = index.first(topic);
          if (load[current] > load[other] + 1) {
            this.reassign(id, other);
            performed = modified = true;
          }
        }
      }
    } while (modified);
    return performed;
  }

  private reassign(id: number, newOwner: number): void {
    const { index, owner, movements } = this.s;
    const moving = movements.actualPartitionToMove(id, owner[id], newOwner);
    const from = owner[moving];
    movements.move(moving, from, newOwner);
    this.undo?.push(moving, from);
    owner[moving] = newOwner;
    index.decrement(from);
    index.increment(newOwner);
  }

  /**
   * Kafka's isBalanced: loads differ by at most one, or no member could take a partition of one of its
   * topics from a member with two or more partitions more. For a topic that is the same as "its most
   * loaded holder has at most one more than its least loaded subscriber", which needs no scan per member.
   */
  private isBalanced(): boolean {
    const { index, owner, input } = this.s;
    if (index.minLoad >= index.maxLoad - 1) return true;
    const load = index.load;
    const { base } = input.topics;
    for (const t of this.multiConsumerTopics) {
      const minSubscriberLoad = load[index.first(t)];
      if (minSubscriberLoad + 1 >= index.maxLoad) continue;
      for (let id = base[t]; id < base[t + 1]; id++) {
        if (load[owner[id]] > minSubscriberLoad + 1) return false;
      }
    }
    return true;
  }

  /** Sum over pairs of participating members of the difference of their loads. */
  private balanceScore(loads: Int32Array): number {
    const { index } = this.s;
    const values: number[] = [];
    for (let m = 0; m < loads.length; m++) if (index.isParticipating(m)) values.push(loads[m]);
    values.sort((a, b) => a - b);
    let score = 0;
    for (let i = 0; i < values.length; i++) score += values[i] * (2 * i - values.length + 1);
    return score;
  }
}
