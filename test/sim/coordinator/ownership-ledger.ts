import type { DescribedConsumerGroup } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';

/** A member that went on believing it owns a partition after the coordinator gave it to another member. */
interface Zombie {
  partition: string;
  newOwner: string;
  /** When the new owner took the partition: requests the zombie sends from then on must be refused. */
  since: number;
}

/** What one member has been told of its epochs. */
interface EpochView {
  current: number;
  /** The highest epoch it was ever given (a rejoin after fencing must come back above it). */
  highest: number;
}

/** What the per-step check reads of a consumer group at its coordinator. */
export interface ConsumerGroupView {
  members: ReadonlyMap<string, HeldPartitions>;
}

interface HeldPartitions {
  memberId: string;
  memberEpoch: number;
  assignedPartitions: ReadonlyMap<string, ReadonlySet<number>>;
  partitionsPendingRevocation: ReadonlyMap<string, ReadonlySet<number>>;
}

function holds(member: HeldPartitions, key: string): boolean {
  const at = key.lastIndexOf('-');
  const topic = key.slice(0, at);
  const p = Number(key.slice(at + 1));
  return (
    (member.assignedPartitions.get(topic)?.has(p) ?? false) ||
    (member.partitionsPendingRevocation.get(topic)?.has(p) ?? false)
  );
}

const FENCED = new Set<number>([ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]);

/**
 * The KIP-848 invariants as the consumer-protocol members themselves see them, checked on every step.
 *
 * Ownership. KIP-848 gives a partition to a new owner only once the coordinator has *committed* that the
 * previous owner no longer holds it: either the previous owner reported (in a heartbeat) that it revoked
 * it — which a member sends only after its revocation finished, so its own view dropped the partition
 * first — or the coordinator removed the previous owner from the group (session timeout, rebalance
 * timeout). Only the second case lets two members' own views overlap, and Kafka allows it: a client keeps
 * no session timer of its own, so a member that was paused or cut off goes on believing it owns its
 * partitions until its next heartbeat is answered FENCED_MEMBER_EPOCH (110) or UNKNOWN_MEMBER_ID (25).
 * Such a zombie is harmless only because the coordinator no longer counts it as a member: it holds
 * nothing there, and refuses everything it sends with its old identity. So, after every step and against
 * the coordinator now serving the group: no partition is held (assigned or pending revocation) by two
 * members, and every partition a member believes it owns is held by that member — unless the member is
 * gone from the group (the zombie). Of two members that believe they own a partition, one is therefore
 * a zombie. And from the instant a member takes a partition another still believes it owns, every
 * heartbeat (other than a leave) and every OffsetCommit the older one sends must be refused — a heartbeat
 * answered NONE, or a commit acknowledged, means the coordinator gave away a partition its owner held.
 * The overlap ends when the zombie learns (110/25, after which it rejoins at epoch 0) or finishes revoking.
 *
 * Epochs. A member's epoch, as its heartbeats' answers give it, never moves back; after it is fenced it
 * rejoins at 0 and comes back at or above every epoch it held (above it when its removal was committed,
 * which bumped the group epoch).
 * A described group's epochs never fall below an epoch some member was acknowledged (those writes were
 * committed), nor below what an earlier description showed.
 */
export class OwnershipLedger {
  /** `group/topic-p` → member id → since when it believes it owns it. */
  private readonly owners = new Map<string, Map<string, number>>();
  private readonly zombies = new Map<string, Zombie[]>();
  private readonly epochs = new Map<string, EpochView>();
  private readonly highestAckedEpoch = new Map<string, number>();
  private readonly describedGroupEpoch = new Map<string, number>();
  readonly violations: string[] = [];
  readonly stats = {
    overlaps: 0,
    fences: 0,
    zombieCommitsRefused: 0,
    zombieHeartbeatsRefused: 0,
    acknowledgedHeartbeats: 0,
    described: 0,
  };

  constructor(private readonly now: () => number) {}

  /** A broken rule stays broken step after step: each finding is reported once. */
  private violate(finding: string): void {
    if (!this.violations.includes(finding)) this.violations.push(finding);
  }

  /** `member` now believes it owns `partition` (`topic-p`) of `group`. */
  acquire(group: string, member: string, partition: string): void {
    const key = `${group}/${partition}`;
    let believers = this.owners.get(key);
    if (!believers) this.owners.set(key, (believers = new Map()));
    for (const other of believers.keys()) {
      if (other === member) continue;
      this.stats.overlaps++;
      const list = this.zombies.get(`${group}/${other}`) ?? [];
      list.push({ partition, newOwner: member, since: this.now() });
      this.zombies.set(`${group}/${other}`, list);
    }
    believers.set(member, this.now());
  }

  /** `member` no longer believes it owns `partition` (revoked, lost or left). */
  release(group: string, member: string, partition: string): void {
    this.owners.get(`${group}/${partition}`)?.delete(member);
    const list = this.zombies.get(`${group}/${member}`);
    if (!list) return;
    const left = list.filter((z) => z.partition !== partition);
    if (left.length > 0) this.zombies.set(`${group}/${member}`, left);
    else this.zombies.delete(`${group}/${member}`);
  }

  /**
   * The per-step check against the coordinator now serving each group (`groupNow`, skipped while none
   * does): no partition is held (assigned or pending revocation) by two members there, and every
   * partition a member believes it owns is held by that member there — or the member is no longer in the
   * group at all: a zombie, fenced but not yet told. (By the first rule, of two members that both believe
   * they own a partition, at most one holds it, so the other must be gone from the group.)
   */
  check(groupNow: (group: string) => ConsumerGroupView | undefined | 'unavailable'): void {
    const views = new Map<string, ReturnType<typeof groupNow>>();
    for (const [key, believers] of this.owners) {
      if (believers.size === 0) continue;
      const at = key.indexOf('/');
      const group = key.slice(0, at);
      const partition = key.slice(at + 1);
      if (!views.has(group)) {
        const view = groupNow(group);
        views.set(group, view);
        if (view && view !== 'unavailable') this.checkExclusive(group, view);
      }
      const view = views.get(group);
      if (view === 'unavailable') continue;
      for (const member of believers.keys()) {
        const held = view?.members.get(member);
        if (held && !holds(held, partition))
          this.violate(
            `${group}/${member} believes it owns ${partition} but the coordinator has it at epoch ${held.memberEpoch} without it`,
          );
      }
    }
  }

  private checkExclusive(group: string, view: ConsumerGroupView): void {
    const holder = new Map<string, string>();
    for (const member of view.members.values())
      for (const map of [member.assignedPartitions, member.partitionsPendingRevocation])
        for (const [topic, partitions] of map)
          for (const p of partitions) {
            const other = holder.get(`${topic}-${p}`);
            if (other && other !== member.memberId)
              this.violate(`${group}: the coordinator has ${topic}-${p} held by ${other} and ${member.memberId}`);
            holder.set(`${topic}-${p}`, member.memberId);
          }
  }

  /** Whether `member` is a zombie for a request sent at `sentAt` (the overlap had begun). */
  private zombieAt(group: string, member: string, sentAt: number): Zombie | undefined {
    return this.zombies.get(`${group}/${member}`)?.find((z) => z.since <= sentAt);
  }

  /** A heartbeat (not a leave) sent at `sentAt` with `sentEpoch` was answered. */
  heartbeatAnswered(
    group: string,
    member: string,
    sentAt: number,
    sentEpoch: number,
    errorCode: number,
    memberEpoch: number,
  ): void {
    const zombie = sentEpoch > 0 ? this.zombieAt(group, member, sentAt) : undefined;
    if (zombie && errorCode === ErrorCode.NONE)
      this.violate(
        `${group}/${member}: heartbeat at epoch ${sentEpoch} answered NONE after ${zombie.partition} went to ${zombie.newOwner} while ${member} still owned it`,
      );
    if (zombie && FENCED.has(errorCode)) this.stats.zombieHeartbeatsRefused++;
    if (errorCode !== ErrorCode.NONE) return;
    this.stats.acknowledgedHeartbeats++;
    const key = `${group}/${member}`;
    const view = this.epochs.get(key) ?? { current: 0, highest: 0 };
    // A rejoin never comes back below an epoch the member held. It may come back at that very epoch: a
    // heartbeat error is answered at once from the coordinator's latest state, as Kafka's write operations
    // are, so a member can be told it was fenced by a removal that a failover then takes back — it still
    // is a member at its epoch when it rejoins, and is given its partitions again.
    if (sentEpoch === 0 && memberEpoch < view.highest)
      this.violate(`${key}: rejoined at epoch ${memberEpoch}, below the epoch ${view.highest} it held before`);
    else if (sentEpoch !== 0 && memberEpoch < view.current)
      this.violate(`${key}: member epoch moved back from ${view.current} to ${memberEpoch}`);
    this.epochs.set(key, { current: memberEpoch, highest: Math.max(view.highest, memberEpoch) });
    this.highestAckedEpoch.set(group, Math.max(this.highestAckedEpoch.get(group) ?? 0, memberEpoch));
  }

  /** The member learned it was fenced: it dropped every partition and rejoins at 0. */
  fenced(group: string, member: string): void {
    this.stats.fences++;
    const view = this.epochs.get(`${group}/${member}`);
    if (view) view.current = 0;
  }

  /** An OffsetCommit sent at `sentAt` was answered with these per-partition codes. */
  commitAnswered(group: string, member: string, sentAt: number, epoch: number, codes: number[]): void {
    const zombie = this.zombieAt(group, member, sentAt);
    if (!zombie) return;
    if (codes.some((c) => c === ErrorCode.NONE))
      this.violate(
        `${group}/${member}: OffsetCommit at epoch ${epoch} acknowledged after ${zombie.partition} went to ${zombie.newOwner} while ${member} still owned it`,
      );
    else this.stats.zombieCommitsRefused++;
  }

  /** The highest member epoch acknowledged in `group` so far (for a check whose answer comes later). */
  ackedEpoch(group: string): number {
    return this.highestAckedEpoch.get(group) ?? 0;
  }

  /** A ConsumerGroupDescribe answer; `ackedBefore` was the highest acknowledged member epoch when it was sent. */
  checkDescribed(described: DescribedConsumerGroup, ackedBefore: number, where: string): void {
    this.stats.described++;
    const { groupId, groupEpoch, assignmentEpoch } = described;
    const seen = this.describedGroupEpoch.get(groupId) ?? 0;
    if (groupEpoch < seen)
      this.violate(`${where}: ${groupId} group epoch ${groupEpoch} is below ${seen}, described before`);
    this.describedGroupEpoch.set(groupId, Math.max(seen, groupEpoch));
    if (assignmentEpoch < ackedBefore || groupEpoch < assignmentEpoch)
      this.violate(
        `${where}: ${groupId} group epoch ${groupEpoch}, assignment epoch ${assignmentEpoch}, but member epoch ${ackedBefore} was acknowledged`,
      );
    const holder = new Map<string, string>();
    for (const m of described.members) {
      if (m.memberEpoch > assignmentEpoch)
        this.violate(`${where}: ${groupId}/${m.memberId} epoch ${m.memberEpoch} > assignment epoch`);
      for (const tp of m.assignment.topicPartitions)
        for (const p of tp.partitions) {
          const other = holder.get(`${tp.topic}-${p}`);
          if (other) this.violate(`${where}: ${groupId} assigns ${tp.topic}-${p} to ${other} and ${m.memberId}`);
          holder.set(`${tp.topic}-${p}`, m.memberId);
        }
    }
  }

  /** Zombies that never learned they were fenced (the final check, after every member heartbeated). */
  openZombies(): string[] {
    return [...this.zombies.entries()].flatMap(([member, list]) =>
      list.map((z) => `${member} still believes it owns ${z.partition}, given to ${z.newOwner}`),
    );
  }

  /** Each partition's believers, for the final convergence check. */
  believers(group: string, partition: string): string[] {
    return [...(this.owners.get(`${group}/${partition}`)?.keys() ?? [])];
  }
}
