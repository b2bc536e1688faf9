import { Controller, Get, Header, Inject } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { CohortConfig } from '../config/cohort-config';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { OperatorMetrics } from '../metrics/operator-metrics';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { RequireAcl } from '../security/authorization/route-acl.decorator';

/** Prometheus text format for this node (docs/rest.md `GET /metrics`); aggregate across nodes in Prometheus. */
@ApiExcludeController()
@Controller('metrics')
export class MetricsController {
  private readonly operator: OperatorMetrics;

  constructor(
    private readonly metrics: CohortMetrics,
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    config: CohortConfig,
  ) {
    // Lag and partition health are read from the node at scrape time; one set of gauges per app.
    this.operator = new OperatorMetrics(
      metrics.registry,
      {
        lagSummaries: (withPartitions, limit) => node.coordinator.lagSummaries(withPartitions, limit),
        consumerGroupStats: (limit) => node.coordinator.consumerGroupStats?.(limit) ?? [],
        cluster: node.cluster,
      },
      { maxGroups: config.metricsMaxGroups, partitionLag: config.metricsPartitionLag },
    );
  }

  @Get()
  @RequireAcl({ request: 'DescribeCluster' })
  @Header('Content-Type', 'text/plain; version=0.0.4; charset=utf-8')
  async scrape(): Promise<string> {
    // Groups of partitions still loading are not listed yet; a scrape never fails for that.
    const groups = await this.node.coordinator.listGroupSummaries().catch(() => null);
    if (groups) this.metrics.setGroups(groups);
    this.operator.refresh();
    return this.metrics.registry.metrics();
  }
}
