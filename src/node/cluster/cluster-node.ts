import type { GroupCoordinator } from '@cohort/coordinator';
import type { NetworkTransport, ReplicationNode } from '@cohort/replication';
import type { AssignorCatalog } from '../assignor-catalog';
import type { CohortNode } from '../cohort-node';
import type { MetadataClusterStatus } from './metadata-cluster-status';
import type { RedisTopicRegistry } from './redis-topic-registry';

/** The parts of a node in cluster mode, and how long a controlled shutdown may take. */
export interface ClusterNodeParts {
  coordinator: GroupCoordinator;
  topics: RedisTopicRegistry;
  cluster: MetadataClusterStatus;
  assignors: AssignorCatalog;
  replication: ReplicationNode;
  transport: NetworkTransport;
  /** The partitions this node leads right now (from the replica manager's leadership events). */
  led: ReadonlySet<number>;
  controlledShutdownTimeoutMs: number;
}

/**
 * One node of a replicated cluster: leads some `__consumer_offsets` partitions and follows others.
 * Closing is a controlled shutdown (Kafka's): stop leading at once — pending writes fail with
 * NOT_COORDINATOR and clients move on — ask the controller to move leadership and ISR membership away
 * and wait for it, so that the other replicas take over without waiting for a session timeout; then
 * flush, deregister and close.
 */
export class ClusterNode implements CohortNode {
  readonly mode = 'redis' as const;
  readonly coordinator: GroupCoordinator;
  readonly topics: RedisTopicRegistry;
  readonly cluster: MetadataClusterStatus;
  readonly assignors: AssignorCatalog;
  private closing: Promise<void> | null = null;

  constructor(private readonly parts: ClusterNodeParts) {
    ({ coordinator: this.coordinator, topics: this.topics, cluster: this.cluster, assignors: this.assignors } = parts);
  }

  /**
   * Ready (docs/rest.md): registered under a live epoch, the metadata known (a controller elected, every
   * partition's state read), and every partition it leads — by the metadata and by its own replicas —
   * loaded and served. A node that has only just registered, before any controller created or elected
   * anything, leads nothing yet and would otherwise look ready.
   */
  isReady(): boolean {
    return this.notReadyReason() === undefined;
  }

  notReadyReason(): string | undefined {
    if (this.closing) return 'shutting down';
    if (!this.parts.replication.isRegistered) return 'not registered';
    if (!this.cluster.isMetadataKnown()) return 'metadata not known yet';
    const serving = new Set(this.coordinator.servingPartitions());
    const led = [...this.parts.led, ...this.cluster.partitionsLedBy(this.cluster.nodeId)];
    return led.every((p) => serving.has(p)) ? undefined : 'loading partitions';
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  /**
   * Stops as `kill -9` would, as far as the cluster can tell (tests run nodes in one process): nothing
   * flushed, released or deregistered, connections cut; the registration is left to expire and the
   * controller to elect new leaders. A later close() does nothing more.
   */
  async crash(): Promise<void> {
    this.closing ??= (async () => {
      this.parts.replication.crash();
      this.coordinator.close();
      this.cluster.close();
      await Promise.all([this.topics.close(), this.parts.transport.close()]);
    })();
    await this.closing;
  }

  private async shutDown(): Promise<void> {
    // The view stops re-reading first: the store closes at the end of the controlled shutdown.
    this.cluster.close();
    await this.parts.replication.controlledShutdown(this.parts.controlledShutdownTimeoutMs);
    this.coordinator.close();
    await Promise.all([this.topics.close(), this.parts.transport.close()]);
  }
}
