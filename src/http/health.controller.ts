import { Controller, Get, Inject } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { HealthCheck, HealthCheckService, HealthIndicatorService } from '@nestjs/terminus';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { NodeLifecycle } from '../node/node-lifecycle';
import { PublicRoute } from '../security/authorization/route-acl.decorator';

/**
 * Liveness says the process answers (never depends on Redis or the log); readiness says this node has
 * loaded and serves every partition it leads, and is not shutting down (SPEC §4).
 */
@ApiTags('health')
@Controller('health')
// Probes answer whoever asks, authorization on or not.
@PublicRoute()
export class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly lifecycle: NodeLifecycle,
    @Inject(COHORT_NODE) private readonly node: CohortNode,
  ) {}

  @Get('live')
  @HealthCheck()
  live() {
    return this.health.check([() => this.indicators.check('process').up({ pid: process.pid })]);
  }

  @Get('ready')
  @HealthCheck()
  ready() {
    return this.health.check([
      () => {
        const coordinator = this.indicators.check('coordinator');
        if (this.lifecycle.shuttingDown) return coordinator.down({ message: 'shutting down' });
        if (this.node.isReady()) return coordinator.up({ mode: this.node.mode });
        return coordinator.down({ message: this.node.notReadyReason?.() ?? 'loading partitions' });
      },
    ]);
  }
}
