import type { MemberAssignment, Subscription } from '@cohort/protocol';

/**
 * The part of an assignor (libs/assignors/README.md `PartitionAssignor`) that server-side assignment needs. Declared
 * structurally here so the coordinator does not depend on libs/assignors: any libs/assignors/README.md assignor fits.
 */
export interface ServerAssignor {
  readonly name: string;
  assign(
    cluster: { partitionsPerTopic: Record<string, number> },
    members: { memberId: string; groupInstanceId?: string | null; subscription: Subscription }[],
  ): Record<string, MemberAssignment>;
}

/** Finds a registered assignor by name (built-ins and ASSIGNOR_PLUGINS). */
export interface ServerAssignorLookup {
  get(name: string): ServerAssignor | undefined;
  names(): string[];
}

/** A lookup over a fixed list, for tests and simple wiring. */
export class StaticAssignorLookup implements ServerAssignorLookup {
  private readonly byName = new Map<string, ServerAssignor>();

  constructor(assignors: readonly ServerAssignor[] = []) {
    for (const assignor of assignors) this.byName.set(assignor.name, assignor);
  }

  get(name: string): ServerAssignor | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }
}
