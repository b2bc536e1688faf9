import type { CommitIdentity } from './offset-committer';

/**
 * Kafka's `Generation` of a member: the id the coordinator gave it, the generation it joined and the
 * protocol chosen then (empty / -1 / null before the first join, and after a reset).
 */
export class Membership {
  memberId = '';
  generationId = -1;
  protocolName: string | null = null;

  constructor(readonly groupInstanceId: string | null) {}

  /** What requests carry, captured when one is sent so its answer can be checked for staleness. */
  identity(): CommitIdentity {
    return { generationId: this.generationId, memberId: this.memberId, groupInstanceId: this.groupInstanceId };
  }

  /** Kafka's `generationUnchanged()`: an answer about another generation or member id is stale. */
  isCurrent(identity: CommitIdentity): boolean {
    return identity.generationId === this.generationId && identity.memberId === this.memberId;
  }
}
