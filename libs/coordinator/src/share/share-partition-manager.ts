import { ErrorCode } from '@cohort/protocol';
import type { Clock, LogRecord } from '@cohort/replication';
import type { CoordinatorConfig } from '../ports/coordinator-config';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import type { TopicRegistry } from '../ports/topic-registry.port';
import { type CoordinatorResult, PARKED, type WriteOutcome } from '../runtime/coordinator-result';
import type { OperationEffects } from '../runtime/operation-effects';
import { SharePartition, type SharePartitionLimits } from './share-partition';
import { ShareAcquireWaiters } from './share-acquire-waiters';
import { ConfiguredShareLimits } from './configured-share-limits';
import type { ShareLeaseOwner, ShareMembershipView, TopicReadable } from './share-ports';
import type { ShareSlot, SlotChange } from './share-slot';
import { type SharePartitionSnapshot, sharePartitionStateTombstone } from './share-state-records';
import { partitionFromSnapshot } from './share-state-snapshot';
import { ShareStateWriter } from './share-state-writer';
import { ShareLeaseCandidates } from './share-lease-candidates';
import { ShareAssignmentStarts } from './share-assignment-starts';
import type { ShareAssignment } from './share-assignment';

export interface SharePartitionManagerDeps {
  effects: OperationEffects;
  clock: Clock;
  config: CoordinatorConfig;
  topics: TopicRegistry;
  metrics?: CoordinatorMetrics;
}

/** Membership before a share group manager is bound: no share group exists. */
const NO_SHARE_GROUPS: ShareMembershipView = { assignedPartitions: () => ErrorCode.GROUP_ID_NOT_FOUND };

const slotKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;
const lockKeyOf = (groupId: string, topic: string, partition: number): string =>
  `share-lock\u0000${groupId}\u0000${topic}\u0000${partition}`;

/**
 * The share partitions of one coordinator shard (the share-partition leader and share coordinator of
 * Kafka, merged, for the groups this shard coordinates): their state machines, the one lock timer per
 * partition armed at its earliest lease deadline, the snapshot write of every change, and the held
 * ShareAcquire requests woken when offsets can be leased again. Every method runs inside a step of the
 * shard; timers and writes that nobody waits on go through the step's effects.
 */
export class SharePartitionManager implements ShareLeaseOwner {
  private readonly groups = new Map<string, Map<string, ShareSlot>>();
  private readonly writer: ShareStateWriter = new ShareStateWriter(this);
  /**
   * Where the next acquire of this shard starts among a member's partitions, so no partition starves the
   * others. The shard's own count, not one shared by every shard of the process: each shard's acquires
   * (and a simulated cluster's runs, one after another in one process) then depend on nothing else.
   */
  private acquireRotation = 0;
  private readonly configuredLimits: ConfiguredShareLimits;
  /** Who may work which partitions: the share group manager, bound once it exists. */
  membership: ShareMembershipView = NO_SHARE_GROUPS;
  readonly waiters: ShareAcquireWaiters;
  /** The partitions an acquire visits: those that may have offsets to lease (share-lease-candidates.ts). */
  readonly candidates = new ShareLeaseCandidates();
  private readonly starts: ShareAssignmentStarts;

  constructor(private readonly deps: SharePartitionManagerDeps) {
    this.waiters = new ShareAcquireWaiters(deps.effects);
    this.configuredLimits = new ConfiguredShareLimits(deps);
    this.starts = new ShareAssignmentStarts({
      membership: { assignedPartitions: (groupId, memberId) => this.membership.assignedPartitions(groupId, memberId) },
      slot: (groupId, topic, partition) => this.slot(groupId, topic, partition),
      slotFor: (groupId, topic, partition) => this.slotFor(groupId, topic, partition),
      schedule: (key, run) => deps.effects.schedule(key, 0, run),
      cancel: (key) => deps.effects.cancel(key),
      written: (started) => deps.effects.write(this.write(started, [], () => undefined)),
    });
  }

  /** The partitions' limits as the config gives them now. */
  get limits(): SharePartitionLimits {
    return this.configuredLimits.current;
  }

  /** GROUP_SHARE_MAX_ACQUIRE_RECORDS: the most offsets one ShareAcquire leases. */
  get maxAcquireRecords(): number {
    return this.deps.config.groupShareMaxAcquireRecords;
  }

  get metrics(): CoordinatorMetrics {
    return this.deps.metrics ?? {};
  }

  get now(): number {
    return this.deps.clock.now();
  }

  /** The rotation of the next acquire (`shareAcquire`), counting up. */
  nextAcquireRotation(): number {
    return this.acquireRotation++;
  }

  slot(groupId: string, topic: string, partition: number): ShareSlot | undefined {
    return this.groups.get(groupId)?.get(slotKey(topic, partition));
  }

  slotsOf(groupId: string): ShareSlot[] {
    return [...(this.groups.get(groupId)?.values() ?? [])];
  }

  /** The groups that have share partition state here. */
  groupIds(): string[] {
    return [...this.groups.keys()];
  }

  /**
   * The partition's state, created on first use at the reported end (`latest`) or start (`earliest`)
   * per GROUP_SHARE_AUTO_OFFSET_RESET; its reported end and log start brought up to the registry's.
   * `changed`: created, or moved by the log start (to be written).
   */
  slotFor(groupId: string, topic: string, partition: number): { slot: ShareSlot; changed: boolean } {
    const reported = this.deps.topics.partitionOffsets(topic, partition);
    const existing = this.slot(groupId, topic, partition);
    if (existing) {
      if (reported) existing.state.reportEnd(reported.endOffset);
      if (reported?.startOffset != null && existing.state.reportLogStart(reported.startOffset))
        return { slot: existing, changed: true };
      return { slot: existing, changed: false };
    }
    const start =
      this.deps.config.groupShareAutoOffsetReset === 'earliest'
        ? (reported?.startOffset ?? 0)
        : (reported?.endOffset ?? 0);
    const state = new SharePartition(0, start);
    if (reported) state.reportEnd(reported.endOffset);
    return { slot: this.put(groupId, topic, partition, state), changed: true };
  }

  /**
   * The partitions of the member's assignment without state yet get it, as many as one step starts
   * (share-assignment-starts.ts); the rest in steps of their own. Returns those started, to be written.
   */
  startAssigned(groupId: string, memberId: string, assigned: ShareAssignment, readable: TopicReadable): ShareSlot[] {
    return this.starts.start(groupId, memberId, assigned, readable);
  }

  /** An acquire visited the slot: it stays among the lease candidates only while it can lease more. */
  visited(slot: ShareSlot): void {
    if (!slot.state.hasLeasable(this.limits)) this.candidates.delete(slot.groupId, slot.topic, slot.partition);
  }

  /**
   * An offset reset (share-offset-reset.ts): the partition's state replaced at once by a fresh one at
   * `startOffset`, one state epoch above the old (Kafka's InitializeShareGroupState), with nothing in
   * flight, acknowledged or archived; the slot is new, so changes of the old one still being written
   * end on it alone. `restore` puts the old state back (the reset's write failed) unless the slot was
   * replaced again since.
   */
  replaceState(
    groupId: string,
    topic: string,
    partition: number,
    startOffset: number,
  ): { slot: ShareSlot; restore: () => void } {
    const previous = this.slot(groupId, topic, partition);
    const state = new SharePartition(previous ? previous.state.stateEpoch + 1 : 0, startOffset);
    const reported = this.deps.topics.partitionOffsets(topic, partition);
    if (reported) state.reportEnd(reported.endOffset);
    const slot = this.put(groupId, topic, partition, state);
    const restore = (): void => {
      const slots = this.groups.get(groupId);
      if (slots?.get(slotKey(topic, partition)) !== slot) return;
      if (previous) {
        slots.set(slotKey(topic, partition), previous);
        this.markIfDue(previous);
        this.afterChange(previous);
        return;
      }
      this.deps.effects.cancel(slot.lockKey);
      slots.delete(slotKey(topic, partition));
      this.candidates.delete(groupId, topic, partition);
      // The partition has no state again: the members' next acquires start it again.
      this.starts.dropGroup(groupId);
      if (slots.size === 0) this.groups.delete(groupId);
    };
    return { slot, restore };
  }

  private put(groupId: string, topic: string, partition: number, state: SharePartition): ShareSlot {
    let slots = this.groups.get(groupId);
    if (!slots) this.groups.set(groupId, (slots = new Map()));
    const slot: ShareSlot = {
      groupId,
      topic,
      partition,
      state,
      lockKey: lockKeyOf(groupId, topic, partition),
      onLockTimer: () => this.onLockTimer(slot),
    };
    slots.set(slotKey(topic, partition), slot);
    this.markIfDue(slot);
    return slot;
  }

  /** Among the lease candidates if it can lease, or if an acquire's visit has a reported log start to apply. */
  private markIfDue(slot: ShareSlot): void {
    const logStart = this.deps.topics.partitionOffsets(slot.topic, slot.partition)?.startOffset;
    if (slot.state.hasLeasable(this.limits) || (logStart != null && logStart > slot.state.startOffset))
      this.candidates.add(slot.groupId, slot.topic, slot.partition);
  }

  /** The write of `touched` slots' snapshots, settled as `ShareStateWriter.write` says. */
  write(
    touched: Iterable<ShareSlot>,
    changes: readonly SlotChange[],
    then: (outcome: WriteOutcome) => void,
  ): CoordinatorResult<never> {
    return this.writer.write(touched, changes, then);
  }

  /** A write nobody waits on, joining the step's batch (a woken acquire's leases, an expiry). */
  submit(result: CoordinatorResult<never>): void {
    if (result !== PARKED) this.deps.effects.write(result);
  }

  /** After a slot changed: its lock timer at its earliest deadline, and held acquires woken if it can lease. */
  afterChange(slot: ShareSlot): void {
    if (this.slot(slot.groupId, slot.topic, slot.partition) !== slot) return;
    this.armLockTimer(slot);
    if (!slot.state.hasLeasable(this.limits)) return;
    this.candidates.add(slot.groupId, slot.topic, slot.partition);
    this.waiters.wake(slot.groupId);
  }

  /**
   * The slot's lock timer at its earliest deadline. A lease that nothing writes (under the delivery
   * horizon) arms it so, without waking held acquires: a lease makes nothing leasable, and a wake from
   * inside an acquire would run the held acquire being answered again.
   */
  armLockTimer(slot: ShareSlot): void {
    const deadline = slot.state.nextDeadline();
    if (deadline === undefined) this.deps.effects.cancel(slot.lockKey);
    else this.deps.effects.schedule(slot.lockKey, Math.max(0, deadline - this.now), slot.onLockTimer);
  }

  /** Locks ran out: the offsets go back (or to the archive at the limit) at once, and the change is written. */
  private onLockTimer(slot: ShareSlot): void {
    if (this.slot(slot.groupId, slot.topic, slot.partition) !== slot) return;
    if (slot.state.expire(this.now, this.limits)) {
      this.availableNow(slot);
      this.deps.effects.write(this.write([slot], [], () => undefined));
    } else this.afterChange(slot);
  }

  /**
   * Offsets of the slot came back with no change pending on them (a lock ran out, its member left, dead
   * letters redelivered): an acquire may lease them before the write recording that ends, as a walk of
   * every assigned partition did, so the slot is a lease candidate from now on, not from that write's end
   * (which wakes held acquires, as before).
   */
  availableNow(slot: ShareSlot): void {
    if (slot.state.hasLeasable(this.limits)) this.candidates.add(slot.groupId, slot.topic, slot.partition);
  }

  /**
   * Producers reported new end offsets: partitions that can lease again wake their held acquires. One
   * whose log start moved is visited by the next acquire, which applies it.
   */
  onEndOffsets(topic: string, partitions: readonly number[]): void {
    for (const slots of this.groups.values())
      for (const partition of partitions) {
        const slot = slots.get(slotKey(topic, partition));
        const reported = this.deps.topics.partitionOffsets(topic, partition);
        if (!slot || !reported) continue;
        if (slot.state.reportEnd(reported.endOffset)) this.afterChange(slot);
        if (reported.startOffset != null && reported.startOffset > slot.state.startOffset)
          this.candidates.add(slot.groupId, topic, partition);
      }
  }

  releaseMember(groupId: string, memberId: string): void {
    this.waiters.dropMember(groupId, memberId);
    this.starts.dropMember(groupId, memberId);
    const released = this.slotsOf(groupId).filter((slot) => slot.state.releaseMember(memberId, this.now, this.limits));
    if (released.length === 0) return;
    for (const slot of released) this.availableNow(slot);
    this.deps.effects.write(this.write(released, [], () => undefined));
  }

  /**
   * DeleteGroups of the group (Kafka's DeleteShareGroupState for each of its share partitions): its
   * partitions go at once, with their lock timers, and its held acquires are answered 69. The state
   * tombstones are returned, to be written in the same write as the group's own: the log then never
   * holds the deleted group without its state gone too (a new leader would hand that state to a group
   * created again under the same id), and a group created again before that write commits starts from
   * fresh partitions, not from the old group's. `restore` puts them back if the write fails.
   */
  deleteGroup(groupId: string): { records: LogRecord[]; restore: () => void } {
    this.waiters.dropGroup(groupId);
    this.starts.dropGroup(groupId);
    const slots = this.groups.get(groupId);
    if (!slots) return { records: [], restore: () => undefined };
    this.groups.delete(groupId);
    this.candidates.dropGroup(groupId);
    for (const slot of slots.values()) this.deps.effects.cancel(slot.lockKey);
    const now = this.now;
    return {
      records: [...slots.values()].map((slot) => sharePartitionStateTombstone(slot, now)),
      // A failed write takes back every write after it too, a new group of the same id included.
      restore: () => {
        this.groups.set(groupId, slots);
        for (const slot of slots.values()) {
          this.markIfDue(slot);
          this.afterChange(slot);
        }
      },
    };
  }

  /**
   * The share partitions a load brought back. Those the load changed (archived at the delivery limit,
   * SPSO moved) are written again, so the log says what is served.
   *
   * The state of a group that `isShareGroup` does not know is not served but deleted (tombstones, in a
   * write of their own): a log written before a group's deletion was one write can hold its group's
   * tombstones without its partitions' (a leader change between the two writes), and a share group
   * created again under that id would otherwise inherit the old group's acknowledgements and counts.
   */
  install(
    loaded: Iterable<{ groupId: string; topic: string; partition: number; snapshot: SharePartitionSnapshot }>,
    isShareGroup: (groupId: string) => boolean,
  ) {
    const changed: ShareSlot[] = [];
    const orphans: LogRecord[] = [];
    for (const { groupId, topic, partition, snapshot } of loaded) {
      if (!isShareGroup(groupId)) {
        orphans.push(sharePartitionStateTombstone({ groupId, topic, partition }, this.now));
        continue;
      }
      const { partition: state, changed: loadChanged } = partitionFromSnapshot(snapshot, this.limits);
      const reported = this.deps.topics.partitionOffsets(topic, partition);
      if (reported) state.reportEnd(reported.endOffset);
      const slot = this.put(groupId, topic, partition, state);
      if (loadChanged) changed.push(slot);
    }
    if (changed.length > 0) this.deps.effects.write(this.write(changed, [], () => undefined));
    // Nobody waits on it: a failed write leaves the old state in the log, and the next load deletes it.
    if (orphans.length > 0) this.deps.effects.write({ records: orphans });
  }

  /** This shard stopped leading: every held acquire is answered NOT_COORDINATOR, and all state goes. */
  close(): void {
    this.waiters.failAll(ErrorCode.NOT_COORDINATOR);
    this.groups.clear();
    this.writer.clear();
    this.candidates.clear();
    this.starts.clear();
  }
}
