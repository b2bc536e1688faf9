/**
 * The assignors a node offers: for classic groups the four built-ins, for consumer groups (server
 * assignors) `uniform` and `range`, and plugins (ASSIGNOR_PLUGINS), which serve both kinds. Names are
 * unique within a kind — a plugin may not shadow a built-in or another plugin, since the name is what
 * members ask for — and `range` names Kafka's classic and server range assignors alike, as in Kafka.
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
import type { ConsumerGroupAssignor, GroupType } from '../server/consumer-group-assignor';
import { consumerGroupAssignorFromPlugin } from '../server/plugin-consumer-assignor';
import { createServerRangeAssignor } from '../server/server-range-assignor';
import { createUniformAssignor } from '../server/uniform-assignor';

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

/** Kafka's server assignors, in Kafka's default `group.consumer.assignors` order. */
export function builtInConsumerGroupAssignors(): ConsumerGroupAssignor[] {
  return [createUniformAssignor(), createServerRangeAssignor()];
}

interface ConsumerEntry {
  assignor: ConsumerGroupAssignor;
  builtIn: boolean;
  source?: string;
}

export class AssignorRegistry {
  private readonly entries = new Map<string, Entry>();
  private readonly consumerEntries = new Map<string, ConsumerEntry>();

  constructor(options: { builtIns?: boolean } = {}) {
    if (options.builtIns ?? true) {
      for (const assignor of builtInAssignors()) this.register(assignor, { builtIn: true, source: 'built-in' });
      for (const assignor of builtInConsumerGroupAssignors())
        this.consumerEntries.set(assignor.name, { assignor, builtIn: true, source: 'built-in' });
    }
  }

  /** Throws an Error naming the assignor (and its source) when it is malformed or its name is taken. */
  register(assignor: PartitionAssignor, options: RegisterOptions = {}): void {
    const from = options.source ? ` from ${options.source}` : '';
    const problem = assignorShapeProblem(assignor);
    if (problem) throw new Error(`cannot register assignor${from}: ${problem}`);
    const existing =
      this.entries.get(assignor.name) ?? (options.builtIn ? undefined : this.consumerEntries.get(assignor.name));
    if (existing) {
      const what = existing.builtIn
        ? 'a built-in assignor'
        : `an assignor already registered${existing.source ? ` from ${existing.source}` : ''}`;
      throw new Error(`cannot register assignor '${assignor.name}'${from}: the name clashes with ${what}`);
    }
    this.entries.set(assignor.name, { assignor, builtIn: options.builtIn ?? false, source: options.source });
    // A plugin serves consumer groups too; the classic built-ins do not (Kafka has no such server assignors).
    if (!options.builtIn)
      this.consumerEntries.set(assignor.name, {
        assignor: consumerGroupAssignorFromPlugin(assignor),
        builtIn: false,
        source: options.source,
      });
  }

  /** The consumer group (server) assignor of that name, if any. */
  consumerGroupAssignor(name: string): ConsumerGroupAssignor | undefined {
    return this.consumerEntries.get(name)?.assignor;
  }

  /** The consumer group assignor, or KafkaError UNSUPPORTED_ASSIGNOR (112). */
  requireConsumerGroupAssignor(name: string): ConsumerGroupAssignor {
    const entry = this.consumerEntries.get(name);
    if (!entry)
      throw KafkaError.of(
        'UNSUPPORTED_ASSIGNOR',
        `no consumer group assignor '${name}'; registered: ${[...this.consumerEntries.keys()].join(', ')}`,
      );
    return entry.assignor;
  }

  /** Names of the consumer group assignors: the built-ins in Kafka's order, then plugins. */
  consumerGroupAssignorNames(): string[] {
    return [...this.consumerEntries.keys()];
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

  /**
   * Every assignor with the kinds of group it serves; one that serves consumer groups only has no
   * classic rebalance protocols.
   */
  list(): AssignorDescription[] {
    const rows: AssignorDescription[] = [...this.entries.values()].map(({ assignor, builtIn }) => ({
      name: assignor.name,
      supportedProtocols: supportedProtocolsOf(assignor),
      builtIn,
      groupTypes: this.groupTypesOf(assignor.name),
    }));
    for (const { assignor, builtIn } of this.consumerEntries.values())
      if (!this.entries.has(assignor.name))
        rows.push({ name: assignor.name, supportedProtocols: [], builtIn, groupTypes: ['consumer'] });
    return rows;
  }

  private groupTypesOf(name: string): GroupType[] {
    return this.consumerEntries.has(name) ? ['classic', 'consumer'] : ['classic'];
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
