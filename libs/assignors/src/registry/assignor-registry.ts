/**
 * The assignors a node offers: the four built-ins plus plugins (ASSIGNOR_PLUGINS). Names are unique —
 * a plugin may not shadow a built-in or another plugin, since the name is the protocol name every
 * member of a group must agree on.
 */
import type { MemberAssignment } from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import {
  supportedProtocolsOf,
  type AssignorDescription,
  type ClusterView,
  type MemberSubscription,
  type PartitionAssignor,
} from '../api/partition-assignor';
import { createCooperativeStickyAssignor } from '../sticky/cooperative-sticky-assignor';
import { createRangeAssignor } from '../range/range-assignor';
import { createRoundRobinAssignor } from '../roundrobin/roundrobin-assignor';
import { createStickyAssignor } from '../sticky/sticky-assignor';
import { runAssignor, type RunAssignorOptions } from '../runner/run-assignor';
import { assignorShapeProblem } from './assignor-shape';

export interface RegisterOptions {
  builtIn?: boolean;
  /** Where the assignor came from (a plugin module), for error messages. */
  source?: string;
}

interface Entry {
  assignor: PartitionAssignor;
  builtIn: boolean;
  source?: string;
}

export function builtInAssignors(): PartitionAssignor[] {
  return [createRangeAssignor(), createRoundRobinAssignor(), createStickyAssignor(), createCooperativeStickyAssignor()];
}

export class AssignorRegistry {
  private readonly entries = new Map<string, Entry>();

  constructor(options: { builtIns?: boolean } = {}) {
    if (options.builtIns ?? true)
      for (const assignor of builtInAssignors()) this.register(assignor, { builtIn: true, source: 'built-in' });
  }

  /** Throws an Error naming the assignor (and its source) when it is malformed or its name is taken. */
  register(assignor: PartitionAssignor, options: RegisterOptions = {}): void {
    const from = options.source ? ` from ${options.source}` : '';
    const problem = assignorShapeProblem(assignor);
    if (problem) throw new Error(`cannot register assignor${from}: ${problem}`);
    const existing = this.entries.get(assignor.name);
    if (existing) {
      const what = existing.builtIn
        ? 'a built-in assignor'
        : `an assignor already registered${existing.source ? ` from ${existing.source}` : ''}`;
      throw new Error(`cannot register assignor '${assignor.name}'${from}: the name clashes with ${what}`);
    }
    this.entries.set(assignor.name, { assignor, builtIn: options.builtIn ?? false, source: options.source });
  }

  get(name: string): PartitionAssignor | undefined {
    return this.entries.get(name)?.assignor;
  }

  has(name: string): boolean {
    return this.entries.has(name);
  }

  isBuiltIn(name: string): boolean {
    return this.entries.get(name)?.builtIn ?? false;
  }

  /** The assignor, or KafkaError UNSUPPORTED_ASSIGNOR (the REST layer answers 404). */
  require(name: string): PartitionAssignor {
    const entry = this.entries.get(name);
    if (!entry)
      throw KafkaError.of(
        'UNSUPPORTED_ASSIGNOR',
        `unknown assignor '${name}'; registered: ${[...this.entries.keys()].join(', ')}`,
      );
    return entry.assignor;
  }

  list(): AssignorDescription[] {
    return [...this.entries.values()].map(({ assignor, builtIn }) => ({
      name: assignor.name,
      supportedProtocols: supportedProtocolsOf(assignor),
      builtIn,
    }));
  }

  /** runAssignor for a registered assignor; built-ins are trusted not to mutate their input. */
  run(
    name: string,
    cluster: ClusterView,
    members: MemberSubscription[],
    options: RunAssignorOptions = {},
  ): Record<string, MemberAssignment> {
    const assignor = this.require(name);
    return runAssignor(assignor, cluster, members, { isolateInput: !this.isBuiltIn(name), ...options });
  }
}
