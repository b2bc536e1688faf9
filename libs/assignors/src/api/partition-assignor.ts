/**
 * The assignor plugin API (libs/assignors/README.md). An assignor is a plain object; the same object works in the
 * server (ASSIGNOR_PLUGINS, server-side assignment, /v1/assignors) and in a client (leader-side
 * assignment). The wire shapes come from @cohort/protocol so plugin authors need nothing else.
 */
import type { MemberAssignment, Subscription, TopicPartitions } from '@cohort/protocol';

export type { MemberAssignment, Subscription, TopicPartitions };

/** Kafka's `RebalanceProtocol`: COOPERATIVE obliges an assignor never to move a partition in one round. */
export type RebalanceProtocol = 'eager' | 'cooperative';

export interface MemberSubscription {
  memberId: string;
  groupInstanceId?: string | null;
  subscription: Subscription;
}

/**
 * What an assignor knows of the cluster. `partitionRacks` is our optional extension for rack-aware
 * assignment (KIP-881): topic → one entry per partition index → the racks of that partition's replicas
 * (all replicas, in or out of the ISR, as Kafka does). Absent means "no rack information".
 */
export interface ClusterView {
  partitionsPerTopic: Record<string, number>;
  partitionRacks?: Record<string, ReadonlyArray<ReadonlyArray<string | null>>>;
}

export interface PartitionAssignor {
  /** Protocol name: 'range', 'roundrobin', 'sticky', 'cooperative-sticky' or a plugin's own. */
  readonly name: string;
  /** Default ['eager']. */
  readonly supportedProtocols?: RebalanceProtocol[];
  /** What a member sends in its subscription (called at every join). */
  subscriptionUserData?(topics: string[]): unknown;
  /** Must return an entry for every member, possibly with no partitions. */
  assign(cluster: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment>;
  /** Called on every member with its new assignment and the new generation. */
  onAssignment?(assignment: MemberAssignment, generationId: number): void;
}

/** What GET /v1/assignors lists. */
export interface AssignorDescription {
  name: string;
  /** The classic protocols it supports; empty for an assignor of consumer groups only. */
  supportedProtocols: RebalanceProtocol[];
  builtIn: boolean;
  /** The kinds of group it serves: 'classic' (leader-side protocol names), 'consumer' (server assignors). */
  groupTypes: ('classic' | 'consumer')[];
}

export function supportedProtocolsOf(assignor: Pick<PartitionAssignor, 'supportedProtocols'>): RebalanceProtocol[] {
  return assignor.supportedProtocols && assignor.supportedProtocols.length > 0
    ? [...assignor.supportedProtocols]
    : ['eager'];
}
