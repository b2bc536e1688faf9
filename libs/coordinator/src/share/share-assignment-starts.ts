import type { ShareAssignment } from './share-assignment';
import type { ShareMembershipView, TopicReadable } from './share-ports';
import type { ShareSlot } from './share-slot';

/** Partitions one step starts at most: what a member's first acquire of a large assignment stalls for. */
export const STARTS_PER_STEP = 1000;
/** Assigned partitions one step looks at (those with state already are only looked up). */
const LOOKS_PER_STEP = 8 * STARTS_PER_STEP;

/** What starting a member's partitions asks of the share partition manager. */
export interface ShareStartsHost {
  readonly membership: ShareMembershipView;
  slot(groupId: string, topic: string, partition: number): ShareSlot | undefined;
  /** The partition's state, created at the reported end or start (GROUP_SHARE_AUTO_OFFSET_RESET). */
  slotFor(groupId: string, topic: string, partition: number): { slot: ShareSlot };
  schedule(key: string, run: () => void): void;
  cancel(key: string): void;
  /** Slots a step started outside an acquire: written by a write nobody waits on. */
  written(started: ShareSlot[]): void;
}

/** How far a member's assignment is started. */
interface Progress {
  readonly assignment: ShareAssignment;
  /** Per topic of the assignment, the index of the next partition to look at (its length once all were). */
  readonly next: number[];
  /** The readable topics of the member's last acquire: a step starts nothing of the others. */
  readable: TopicReadable;
  readonly timerKey: string;
}

/**
 * Each partition assigned to a member gets its share partition state at the member's first acquire, as
 * Kafka's share-partition leader creates a SharePartition on the first ShareFetch naming it: from then on
 * its start (the reported end with `latest`) is fixed and written. For an assignment of hundreds of
 * thousands of partitions that is hundreds of thousands of states and records, seconds of one event
 * loop: an acquire starts at most STARTS_PER_STEP of them (looking at most LOOKS_PER_STEP up), and the
 * rest are started by steps of their own, one after another, each as bounded, until every partition of
 * the assignment the member may read has its state. The acquire leases from what is started; a held one
 * is woken by a partition a later step started with offsets to lease. The price: a partition started by
 * a later step starts at the end reported then (`latest`), up to a few seconds after the acquire.
 *
 * A member's progress is kept per assignment: a new one is looked at from its beginning again (only the
 * partitions without state are started), as is every member's of a group whose state lost a partition
 * (deleted, a failed offset reset taken back). A topic the member may not read is passed over, and looked
 * at again by the member's next acquire.
 */
export class ShareAssignmentStarts {
  private readonly byGroup = new Map<string, Map<string, Progress>>();

  constructor(private readonly host: ShareStartsHost) {}

  /**
   * The member's acquire: the next partitions of its assignment without state are started, at most
   * STARTS_PER_STEP, and returned (to be written with the acquire); a step of their own is scheduled for
   * the rest.
   */
  start(groupId: string, memberId: string, assignment: ShareAssignment, readable: TopicReadable): ShareSlot[] {
    let progress = this.byGroup.get(groupId)?.get(memberId);
    if (progress === undefined || progress.assignment !== assignment)
      progress = this.track(groupId, memberId, assignment, readable);
    progress.readable = readable;
    if (!this.hasReadableLeft(progress)) return NOTHING_STARTED;
    const started = this.step(groupId, progress);
    this.continueLater(groupId, memberId, progress);
    return started;
  }

  /** The member went: nothing more of its assignment is started for it. */
  dropMember(groupId: string, memberId: string): void {
    const members = this.byGroup.get(groupId);
    const progress = members?.get(memberId);
    if (!progress) return;
    this.host.cancel(progress.timerKey);
    members!.delete(memberId);
    if (members!.size === 0) this.byGroup.delete(groupId);
  }

  /** The group's state lost partitions (or the group went): its members' assignments are looked at afresh. */
  dropGroup(groupId: string): void {
    for (const progress of this.byGroup.get(groupId)?.values() ?? []) this.host.cancel(progress.timerKey);
    this.byGroup.delete(groupId);
  }

  /** The shard closes (its timers go with it). */
  clear(): void {
    this.byGroup.clear();
  }

  private track(groupId: string, memberId: string, assignment: ShareAssignment, readable: TopicReadable): Progress {
    const progress: Progress = {
      assignment,
      next: assignment.topics.map(() => 0),
      readable,
      timerKey: `share-start\u0000${groupId}\u0000${memberId}`,
    };
    let members = this.byGroup.get(groupId);
    if (!members) this.byGroup.set(groupId, (members = new Map()));
    const older = members.get(memberId);
    if (older) this.host.cancel(older.timerKey);
    members.set(memberId, progress);
    return progress;
  }

  /** Starts the next partitions without state, within the step's bounds. */
  private step(groupId: string, progress: Progress): ShareSlot[] {
    const started: ShareSlot[] = [];
    let looks = 0;
    const { topics } = progress.assignment;
    for (let t = 0; t < topics.length && started.length < STARTS_PER_STEP && looks < LOOKS_PER_STEP; t++) {
      const { topic, partitions } = topics[t];
      if (progress.next[t] >= partitions.length || !progress.readable(topic)) continue;
      let i = progress.next[t];
      for (; i < partitions.length && started.length < STARTS_PER_STEP && looks < LOOKS_PER_STEP; i++, looks++)
        if (this.host.slot(groupId, topic, partitions[i]) === undefined)
          started.push(this.host.slotFor(groupId, topic, partitions[i]).slot);
      progress.next[t] = i;
    }
    return started;
  }

  /** A step of its own for the rest, if the member may read some of it. */
  private continueLater(groupId: string, memberId: string, progress: Progress): void {
    if (!this.hasReadableLeft(progress)) return;
    this.host.schedule(progress.timerKey, () => {
      if (this.byGroup.get(groupId)?.get(memberId) !== progress) return;
      const now = this.host.membership.assignedPartitions(groupId, memberId);
      if (typeof now === 'number') return this.dropMember(groupId, memberId);
      const current = now === progress.assignment ? progress : this.track(groupId, memberId, now, progress.readable);
      const started = this.step(groupId, current);
      if (started.length > 0) this.host.written(started);
      this.continueLater(groupId, memberId, current);
    });
  }

  private hasReadableLeft(progress: Progress): boolean {
    const { topics } = progress.assignment;
    for (let t = 0; t < topics.length; t++)
      if (progress.next[t] < topics[t].partitions.length && progress.readable(topics[t].topic)) return true;
    return false;
  }
}

const NOTHING_STARTED: ShareSlot[] = Object.freeze([]) as unknown as ShareSlot[];
