import type { CohortMember, TopicPartitions } from '@cohort/client';

export interface TimelineEntry {
  member: string;
  kind: 'assigned' | 'revoked' | 'lost';
  partitions: string[];
  generationId?: number;
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

  watch(name: string, member: CohortMember): CohortMember {
    member.on('assigned', (e) => {
      this.entries.push({
        member: name,
        kind: 'assigned',
        partitions: keys(e.partitions),
        generationId: e.generationId,
      });
    });
    member.on('revoked', (e) => {
      this.entries.push({
        member: name,
        kind: 'revoked',
        partitions: keys(e.partitions),
        generationId: e.generationId,
      });
    });
    member.on('lost', (e) => {
      this.entries.push({ member: name, kind: 'lost', partitions: keys(e.partitions) });
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
export function holdings(members: Record<string, CohortMember>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(members).map(([name, m]) => [name, keys(m.assignment).sort()]));
}

/** Every member stable, no rebalance pending, all of one generation, and `total` partitions held between them without overlap. */
export function settled(members: CohortMember[], total: number): boolean {
  const generation = members[0]?.generationId;
  if (!members.every((m) => m.state === 'stable' && m.generationId === generation && generation > 0)) return false;
  const all = members.flatMap((m) => keys(m.assignment));
  return all.length === total && new Set(all).size === total;
}
