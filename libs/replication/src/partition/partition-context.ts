import type { ReplicationConfig } from '../replication-config';
import type { Clock } from '../time/clock';
import type { ReplicationRules } from './replication-rules';

/** What a Partition needs from the node that hosts it. */
export interface PartitionContext {
  readonly nodeId: number;
  /** This node's current registration epoch (KIP-903). */
  nodeEpoch(): number;
  readonly config: ReplicationConfig;
  readonly clock: Clock;
  /** The registration epoch the cluster knows for `nodeId`, or undefined when it is not registered (fenced). */
  registeredEpoch(nodeId: number): number | undefined;
  /** Registered and not in controlled shutdown. */
  isAcceptable(nodeId: number): boolean;
  /** False once every replication connection of `nodeId` closed, until it fetches again. */
  isConnected(nodeId: number): boolean;
  /** The HW, follow and ISR-join rules (`KAFKA_REPLICATION_RULES` outside the simulator's self-test). */
  readonly rules: ReplicationRules;
  readonly events: PartitionEvents;
}

/** What a Partition tells its node; the node turns these into wake-ups, requests and notifications. */
export interface PartitionEvents {
  /** The leader appended: wake parked follower fetches; flush if LOG_FLUSH_POLICY=always. */
  onLeaderAppend(partition: number): void;
  /** The leader's HW rose. */
  onHighWatermark(partition: number, leaderEpoch: number, hw: number): void;
  /** An ISR change is pending and must be sent to the controller. */
  onIsrProposal(partition: number): void;
  /** The log is about to be truncated (for I15 monitoring). */
  onTruncate(partition: number, toOffset: number, highWatermark: number, reason: string): void;
}
