import { Controller, Get, Inject, Query, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { ClusterResponse } from './responses/cluster.response';
import { CoordinatorLocationResponse } from './responses/coordinator-location.response';
import { PartitionResponse } from './responses/partition.response';
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
@ApiProtected()
@Controller('v1')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class ClusterController {
  constructor(@Inject(COHORT_NODE) private readonly node: CohortNode) {}

  @Get('coordinator')
  @RequireAcl({ request: 'FindCoordinator', group: fromQuery('groupId') })
  @ApiOkResponse({
    type: CoordinatorLocationResponse,
    description: 'As FindCoordinator answers (docs/protocol.md placement).',
  })
  @ApiErrors({
    400: 'INVALID_REQUEST (42): a missing or bad groupId.',
    503: 'COORDINATOR_NOT_AVAILABLE (15): the partition has no leader now.',
  })
  coordinator(@Query() query: CoordinatorQueryDto): FindCoordinatorResponse {
    const response = findCoordinator(this.node, query.groupId);
    if (response.errorCode !== ErrorCode.NONE)
      throw new KafkaError(response.errorCode as ErrorCodeValue, response.errorMessage);
    return response;
  }

  @Get('cluster')
  @RequireAcl({ request: 'DescribeCluster' })
  @ApiOkResponse({ type: ClusterResponse })
  cluster(): { clusterId: string; controllerId: number | null; nodes: NodeView[] } {
    const { cluster } = this.node;
    return { clusterId: cluster.clusterId, controllerId: cluster.controllerId(), nodes: cluster.nodes() };
  }

  @Get('cluster/partitions')
  @RequireAcl({ request: 'DescribeCluster' })
  @ApiOkResponse({ type: PartitionResponse, isArray: true, description: 'Every __consumer_offsets partition.' })
  partitions(): PartitionView[] {
    return this.node.cluster.partitions();
  }
}
