import { type BeforeApplicationShutdown, Inject, Injectable, Logger } from '@nestjs/common';
import { COHORT_NODE, type CohortNode } from './cohort-node';

/**
 * Graceful shutdown (enableShutdownHooks): readiness goes down first so a load balancer stops sending
 * work, then the node closes — pending writes finish or fail with NOT_COORDINATOR, the log is flushed
 * and closed — before Nest closes the HTTP and socket.io listeners (which happens after this hook).
 */
@Injectable()
export class NodeLifecycle implements BeforeApplicationShutdown {
  private readonly logger = new Logger('NodeLifecycle');
  private closing = false;

  constructor(@Inject(COHORT_NODE) private readonly node: CohortNode) {}

  get shuttingDown(): boolean {
    return this.closing;
  }

  async beforeApplicationShutdown(signal?: string): Promise<void> {
    this.closing = true;
    this.logger.log(`shutting down${signal ? ` on ${signal}` : ''}: closing the coordinator and the log`);
    await this.node.close();
    this.logger.log('log closed');
  }
}
