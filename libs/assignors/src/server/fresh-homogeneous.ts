/**
 * The homogeneous builder (uniform-homogeneous.ts) on a group in which no member holds anything (a
 * fresh group, or one whose targets were all revoked): nothing is revoked, every member with a quota is
 * unfilled, and the unassigned list is every partition in the order of the topic set then partition
 * number, so member m (in member order) gets the run of that list starting at m * minQuota + min(m,
 * extra). Most runs are partitions of one topic in ascending order, whose Java order follows from the
 * run's ends alone; only the few members whose run spans a topic boundary (or is too long to know
 * that no chain could treeify) are logged partition by partition for target-replay.ts, as the general
 * builder logs every change.
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { GroupModel } from './group-model';
import { TargetLog } from './member-target-log';

/**
 * A run this long or shorter, in a table that starts at 16 buckets, puts at most eight partitions in a
 * bucket of that first table, so treeifyBin never runs; partitions below 2^16 are their own hash.
 */
const MAX_DIRECT_RUN = 128;
const DIRECT_HASH_LIMIT = 1 << 16;
/** A member's position when it gets nothing, and when its run is logged. */
const NOTHING = -2;
const LOGGED = -1;

export class FreshHomogeneousDeal {
  /** The members whose run is not a direct one, their adds logged as the builder makes them. */
  readonly log: TargetLog;
  private readonly minQuota: number;
  private readonly extra: number;
  /** Per position in the topic order: the index in the dealt list of its first partition. */
  private readonly topicStart: Int32Array;
  /** Per member: the position in the topic order of the one topic its direct run lies in, or NOTHING, LOGGED. */
  private readonly position: Int32Array;

  constructor(
    private readonly model: GroupModel,
    private readonly topicOrder: readonly number[],
  ) {
    const { members, topics } = model;
    const topicStart = new Int32Array(topicOrder.length + 1);
    for (let i = 0; i < topicOrder.length; i++) topicStart[i + 1] = topicStart[i] + topics[topicOrder[i]].partitions;
    const total = topicStart[topicOrder.length];
    this.topicStart = topicStart;
    this.minQuota = Math.floor(total / members.length);
    this.extra = total % members.length;
    // new HashSet<>() for every topic: the builder's computeIfAbsent.
    this.log = new TargetLog(members.length, new Int32Array(topics.length).fill(-1), 64);
    const position = new Int32Array(members.length);
    // Runs follow one another through the topic order: one cursor for all members.
    let i = 0;
    for (let m = 0; m < members.length; m++) {
      const n = this.quota(m);
      if (n === 0) {
        position[m] = NOTHING;
        continue;
      }
      const start = this.runStart(m);
      while (topicStart[i + 1] <= start) i++;
      const end = start + n;
      if (n <= MAX_DIRECT_RUN && end <= topicStart[i + 1] && end - topicStart[i] <= DIRECT_HASH_LIMIT) position[m] = i;
      else {
        position[m] = LOGGED;
        this.logRun(m);
      }
    }
    this.position = position;
  }

  /** The member's quota: the first `extra` members get one partition more. */
  private quota(m: number): number {
    return this.minQuota + (m < this.extra ? 1 : 0);
  }

  private runStart(m: number): number {
    return m * this.minQuota + Math.min(m, this.extra);
  }

  /** The builder's adds for a member whose run is not direct, in the order it makes them. */
  private logRun(m: number): void {
    const start = this.runStart(m);
    const end = start + this.quota(m);
    const topicStart = this.topicStart;
    this.log.touch(m);
    let i = 0;
    for (let at = start; at < end; at++) {
      while (topicStart[i + 1] <= at) i++;
      this.log.add(m, this.topicOrder[i], at - topicStart[i]);
    }
  }

  /**
   * The member's new target when its run is direct; null when it gets nothing (its target is the
   * one it was given); undefined when its run was logged.
   */
  directTarget(m: number): TopicPartitions[] | null | undefined {
    const i = this.position[m];
    if (i === NOTHING) return null;
    if (i === LOGGED) return undefined;
    const n = this.quota(m);
    const first = this.runStart(m) - this.topicStart[i];
    // The set's table after n adds to new HashSet<>() (16 buckets, resized past three quarters full).
    let capacity = 16;
    while (n > capacity * 0.75) capacity *= 2;
    const mask = capacity - 1;
    // Buckets are the partitions' low bits, distinct over a run no longer than the table: Java walks
    // the run from its first partition in bucket 0 (if any) to its end, then from its start.
    let wrap = (first | mask) + 1;
    if ((first & mask) === 0 || wrap >= first + n) wrap = first;
    const partitions = new Array<number>(n);
    let k = 0;
    for (let p = wrap; p < first + n; p++) partitions[k++] = p;
    for (let p = first; p < wrap; p++) partitions[k++] = p;
    return [{ topic: this.model.topics[this.topicOrder[i]].name, partitions }];
  }
}
