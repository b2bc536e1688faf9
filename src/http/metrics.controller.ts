import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { RequireAcl } from '../security/authorization/route-acl.decorator';

/** Prometheus text format for this node (SPEC §4 `GET /metrics`); aggregate across nodes in Prometheus. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  constructor(
    private readonly metrics: CohortMetrics,
    @Inject(COHORT_NODE) private readonly node: CohortNode,
  ) {}

  @Get()
  @RequireAcl({ request: 'DescribeCluster' })
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    // Groups of partitions still loading are not listed yet; a scrape never fails for that.
    const groups = await this.node.coordinator.listGroupSummaries().catch(() => null);
    if (groups) this.metrics.setGroups(groups);
    return this.metrics.registry.metrics();
  }
}
