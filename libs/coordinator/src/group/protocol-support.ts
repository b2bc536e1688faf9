import type { MemberMetadata } from './member-metadata';

/**
 * How many members support each protocol (Kafka's `supportedProtocols` counter): a protocol is a
 * candidate for the group exactly when every member supports it.
 */
export class ProtocolSupport {
  /** Made with the first member: a group of offsets only never has one. */
  private counts: Map<string, number> | undefined;

  count(member: MemberMetadata, delta: 1 | -1): void {
    for (const name of member.protocolNames()) {
      const counts = (this.counts ??= new Map());
      const count = (counts.get(name) ?? 0) + delta;
      if (count === 0) counts.delete(name);
      else counts.set(name, count);
    }
  }

  isSupportedByAll(protocol: string, groupSize: number): boolean {
    return this.counts?.get(protocol) === groupSize;
  }

  candidates(groupSize: number): Set<string> {
    const out = new Set<string>();
    for (const [protocol, count] of this.counts ?? []) if (count === groupSize) out.add(protocol);
    return out;
  }
}

/**
 * The protocol vote (Kafka's `selectProtocol`): each member votes for its first protocol that every
 * member supports; most votes wins. Kafka leaves ties to hash-map order; here the protocol that got its
 * first vote earliest (members in join order) wins, so the choice is deterministic.
 */
export function voteProtocol(members: MemberMetadata[], candidates: ReadonlySet<string>): string {
  const votes = new Map<string, number>();
  for (const member of members) {
    const choice = member.vote(candidates);
    votes.set(choice, (votes.get(choice) ?? 0) + 1);
  }
  let best = '';
  let bestVotes = -1;
  for (const [protocol, count] of votes) {
    if (count > bestVotes) {
      best = protocol;
      bestVotes = count;
    }
  }
  return best;
}
