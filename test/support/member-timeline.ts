import type { CohortMember, MemberEvents, TopicPartitions } from '@cohort/client';

/** What the timeline needs of a member, of either group protocol. */
export interface ListenedMember {
  readonly assignment: TopicPartitions[];
  on<K extends keyof MemberEvents>(event: K, listener: (payload: MemberEvents[K]) => unknown): unknown;
}

export interface TimelineEntry {
  member: string;
  kind: 'assigned' | 'revoked' | 'lost';
  partitions: string[];
  generationId?: number;
  /** When the listener ran (`performance.now()`: one clock for every member of the test process). */
  at: number;
}

/** How long two members owned one partition at once. */
export interface Overlap {
  partition: string;
  members: [string, string];
  ms: number;
}

function keys(partitions: TopicPartitions[]): string[] {
  return partitions.flatMap((p) => p.partitions.map((n) => `${p.topic}-${n}`));
}

/**
 * The merged listener timeline of several SDK members, in the order the listeners ran: `assigned`
 * as the listener starts (the member owns the partitions from then), `revoked`/`lost` as it ends
 * (the member gives them up after its listener). Replaying it shows who owned what at every moment.
 */
export class MemberTimeline {
  readonly entries: TimelineEntry[] = [];

  watch<M extends ListenedMember>(name: string, member: M): M {
    member.on('assigned', (e) => {
      this.entries.push({
        member: name,
        kind: 'assigned',
        partitions: keys(e.partitions),
        generationId: e.generationId,
        at: performance.now(),
      });
    });
    member.on('revoked', (e) => {
      this.entries.push({
        member: name,
        kind: 'revoked',
        partitions: keys(e.partitions),
        generationId: e.generationId,
        at: performance.now(),
      });
    });
    member.on('lost', (e) => {
      this.entries.push({ member: name, kind: 'lost', partitions: keys(e.partitions), at: performance.now() });
    });
    return member;
  }

  /** Every moment at which a partition was owned by two members (empty when the protocol held). */
  doubleOwnership(): string[] {
    const owner = new Map<string, string>();
    const problems: string[] = [];
    this.entries.forEach((entry, index) => {
      for (const p of entry.partitions) {
        if (entry.kind === 'assigned') {
          const current = owner.get(p);
          if (current !== undefined && current !== entry.member)
            problems.push(`#${index}: ${p} assigned to ${entry.member} while ${current} owns it`);
          owner.set(p, entry.member);
        } else if (owner.get(p) === entry.member) {
          owner.delete(p);
        }
      }
    });
    return problems;
  }

  /**
   * Every stretch of time during which two members owned one partition, by the listeners' own times
   * (a member owns a partition from its `assigned` until its `revoked`/`lost`; one still owned is owned
   * until now). Empty when ownership never overlapped.
   */
  overlaps(now = performance.now()): Overlap[] {
    const spans = new Map<string, { member: string; from: number; to: number }[]>();
    const open = new Map<string, { member: string; from: number; to: number }>();
    for (const entry of this.entries) {
      for (const p of entry.partitions) {
        const key = `${entry.member}\u0000${p}`;
        if (entry.kind === 'assigned') {
          if (open.has(key)) continue;
          const span = { member: entry.member, from: entry.at, to: Number.POSITIVE_INFINITY };
          open.set(key, span);
          spans.set(p, [...(spans.get(p) ?? []), span]);
        } else {
          const span = open.get(key);
          if (span) span.to = entry.at;
          open.delete(key);
        }
      }
    }
    const overlaps: Overlap[] = [];
    for (const [partition, list] of spans)
      for (let i = 0; i < list.length; i++)
        for (let j = i + 1; j < list.length; j++) {
          const [a, b] = [list[i], list[j]];
          if (a.member === b.member) continue;
          const ms = Math.min(a.to, b.to, now) - Math.max(a.from, b.from);
          if (ms > 0) overlaps.push({ partition, members: [a.member, b.member], ms });
        }
    return overlaps;
  }

  /**
   * For each partition `from` gave up and `to` got after it: how long (ms) between the end of `from`'s
   * `revoked`/`lost` and the start of `to`'s `assigned` (negative would be an overlap).
   */
  handovers(from: string, to: string): { partition: string; gapMs: number }[] {
    const out: { partition: string; gapMs: number }[] = [];
    this.entries.forEach((released, index) => {
      if (released.member !== from || released.kind === 'assigned') return;
      for (const partition of released.partitions) {
        const taken = this.entries
          .slice(index + 1)
          .find((e) => e.member === to && e.kind === 'assigned' && e.partitions.includes(partition));
        if (taken) out.push({ partition, gapMs: taken.at - released.at });
      }
    });
    return out;
  }

  /** Everything `member` was told it gave up, from entry `from` on. */
  revokedBy(member: string, from = 0): string[] {
    return this.entries
      .slice(from)
      .filter((e) => e.member === member && e.kind !== 'assigned')
      .flatMap((e) => e.partitions)
      .sort();
  }
}

/** The partitions a set of members hold, as `topic-n` strings, per member. */
export function holdings(members: Record<string, { assignment: TopicPartitions[] }>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(members).map(([name, m]) => [name, keys(m.assignment).sort()]));
}

/** Every member stable, no rebalance pending, all of one generation, and `total` partitions held between them without overlap. */
export function settled(members: CohortMember[], total: number): boolean {
  const generation = members[0]?.generationId;
  if (!members.every((m) => m.state === 'stable' && m.generationId === generation && generation > 0)) return false;
  const all = members.flatMap((m) => keys(m.assignment));
  return all.length === total && new Set(all).size === total;
}
