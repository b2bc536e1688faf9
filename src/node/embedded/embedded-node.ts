import type { GroupCoordinator, TopicRegistry } from '@cohort/coordinator';
import type { LogDamage, StorageFaultInfo } from '@cohort/replication';
import type { AssignorCatalog } from '../assignor-catalog';
import type { CohortNode } from '../cohort-node';
import type { EmbeddedClusterStatus } from './embedded-cluster-status';

/** The parts of a node in embedded mode, and the order in which they stop. */
export interface EmbeddedNodeParts {
  coordinator: GroupCoordinator;
  topics: TopicRegistry;
  cluster: EmbeddedClusterStatus;
  assignors: AssignorCatalog;
  numPartitions: number;
  /** The storage fault writes are refused for, while there is one. */
  storageFault(): StorageFaultInfo | undefined;
  /** Partitions left unserved because their log is damaged where written records are. */
  damagedPartitions(): ReadonlyMap<number, LogDamage>;
  /** Closes the local log (flushes, then closes the segment files). */
  closeStore(): Promise<void>;
}

/** One node with its own file log under DATA_DIR: leader of every `__consumer_offsets` partition. */
export class EmbeddedNode implements CohortNode {
  readonly mode = 'embedded' as const;
  readonly coordinator: GroupCoordinator;
  readonly topics: TopicRegistry;
  readonly cluster: EmbeddedClusterStatus;
  readonly assignors: AssignorCatalog;
  private closing: Promise<void> | null = null;

  constructor(private readonly parts: EmbeddedNodeParts) {
    ({ coordinator: this.coordinator, topics: this.topics, cluster: this.cluster, assignors: this.assignors } = parts);
  }

  /**
   * This node leads every partition, so it is ready once it serves them all, and while its storage
   * takes writes: during a storage fault it still answers reads, but refuses every write.
   */
  isReady(): boolean {
    return this.notReadyReason() === undefined;
  }

  notReadyReason(): string | undefined {
    if (this.closing) return 'shutting down';
    const lasting = this.lastingReason();
    if (lasting) return lasting;
    if (this.coordinator.servingPartitions().length !== this.parts.numPartitions) return 'loading partitions';
    return undefined;
  }

  /** Partitions load in time; a storage fault or a damaged log needs the operator, and so does a close. */
  mayBecomeReady(): boolean {
    return !this.closing && this.lastingReason() === undefined;
  }

  private lastingReason(): string | undefined {
    const fault = this.parts.storageFault();
    if (fault) return `storage fault${fault.code ? ` (${fault.code})` : ''}: ${fault.error.message}`;
    const damaged = [...this.parts.damagedPartitions()];
    if (damaged.length > 0)
      return `damaged log, not served: ${damaged.map(([p, d]) => `__consumer_offsets-${p} (offsets ${d.from}..${d.to - 1} would be lost)`).join(', ')}; see LOG_RECOVERY_TRUNCATE_ON_CORRUPTION`;
    return undefined;
  }

  close(): Promise<void> {
    this.closing ??= this.shutDown();
    return this.closing;
  }

  private async shutDown(): Promise<void> {
    // The coordinator goes first so that no new write reaches a closing log; pending ones fail with
    // NOT_COORDINATOR. Then the store flushes what was appended and closes its files.
    this.coordinator.close();
    this.cluster.close();
    await this.parts.closeStore();
  }
}
