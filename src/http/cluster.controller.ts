import { Controller, Get, Inject, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ErrorCode, type ErrorCodeValue, type FindCoordinatorResponse, KafkaError } from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import type { NodeView, PartitionView } from '../node/cluster-status';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { findCoordinator } from '../node/find-coordinator';
import { fromQuery, RequireAcl } from '../security/authorization/route-acl.decorator';
import { CoordinatorQueryDto } from './dto/coordinator-query.dto';

/** docs/rest.md: FindCoordinator over REST, the nodes of the cluster and the state of each offsets partition. */
@ApiTags('cluster')
@Controller('v1')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class ClusterController {
  constructor(@Inject(COHORT_NODE) private readonly node: CohortNode) {}

  @Get('coordinator')
  @RequireAcl({ request: 'FindCoordinator', group: fromQuery('groupId') })
  @ApiOkResponse({ description: '{ nodeId, host, port, url, partition } as FindCoordinator answers it.' })
  coordinator(@Query() query: CoordinatorQueryDto): FindCoordinatorResponse {
    const response = findCoordinator(this.node, query.groupId);
    if (response.errorCode !== ErrorCode.NONE)
      throw new KafkaError(response.errorCode as ErrorCodeValue, response.errorMessage);
    return response;
  }

  @Get('cluster')
  @RequireAcl({ request: 'DescribeCluster' })
  @ApiOkResponse({ description: '{ clusterId, controllerId, nodes: [{ nodeId, url, alive }] }' })
  cluster(): { clusterId: string; controllerId: number | null; nodes: NodeView[] } {
    const { cluster } = this.node;
    return { clusterId: cluster.clusterId, controllerId: cluster.controllerId(), nodes: cluster.nodes() };
  }

  @Get('cluster/partitions')
  @RequireAcl({ request: 'DescribeCluster' })
  @ApiOkResponse({
    description: '[{ partition, leader, leaderEpoch, replicas, isr, highWatermark, logEndOffset, replicaStates }]',
  })
  partitions(): PartitionView[] {
    return this.node.cluster.partitions();
  }
}
