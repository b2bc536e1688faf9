import type { GroupCoordinator } from '@cohort/coordinator';
import type { NetworkTransport, ReplicationNode } from '@cohort/replication';
import type { AssignorCatalog } from '../assignor-catalog';
import type { CohortNode } from '../cohort-node';
import type { MetadataClusterView } from './metadata-cluster-view';
import type { RedisTopicRegistry } from './redis-topic-registry';

/** The parts of a node in cluster mode, and how long a controlled shutdown may take. */
export interface ClusterNodeParts {
  coordinator: GroupCoordinator;
  topics: RedisTopicRegistry;
  cluster: MetadataClusterView;
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
  readonly cluster: MetadataClusterView;
  readonly assignors: AssignorCatalog;
  private closing: Promise<void> | null = null;

  constructor(private readonly parts: ClusterNodeParts) {
    ({ coordinator: this.coordinator, topics: this.topics, cluster: this.cluster, assignors: this.assignors } = parts);
  }

  /** Registered, and serving (loaded) every partition it leads. */
  isReady(): boolean {
    if (this.closing || this.parts.replication.epoch < 0) return false;
    const serving = new Set(this.coordinator.servingPartitions());
    return [...this.parts.led].every((p) => serving.has(p));
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
