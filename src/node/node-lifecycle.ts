import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { CohortConfig } from '../config/cohort-config';
import { COHORT_NODE, type CohortNode } from './cohort-node';
import { DataDirLock } from './storage/data-dir-lock';

/**
 * Graceful shutdown (enableShutdownHooks): readiness goes down first so a load balancer stops sending
 * work, then the node closes — pending writes finish or fail with NOT_COORDINATOR, the log is flushed
 * and closed — before Nest closes the HTTP and socket.io listeners (which happens after this hook).
 */
@Injectable()
export class NodeLifecycle implements BeforeApplicationShutdown {
  private readonly logger = new Logger('NodeLifecycle');
  private closing = false;

  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly config: CohortConfig,
  ) {}

  get shuttingDown(): boolean {
    return this.closing;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.closing = true;
    this.logger.log(`shutting down${signal ? ` on ${signal}` : ''}: closing the coordinator and the log`);
    try {
      await this.node.close();
    } finally {
      // The node no longer writes DATA_DIR: another may take it (a no-op when the app did not lock it).
      DataDirLock.releaseFor(this.config.dataDir);
    }
    this.logger.log('log closed');
  }
}
