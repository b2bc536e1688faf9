import {
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  Inject,
  Param,
  Post,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { AssignDryRunResponse } from './responses/assign-dry-run.response';
import { AssignorResponse } from './responses/assignor.response';
import type { AssignorDescription, DryRunResponse } from '@cohort/assignors';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { RequireAcl } from '../security/authorization/route-acl.decorator';
import { AssignDryRunDto } from './dto/assign-dry-run.dto';

/** docs/rest.md assignors: what is registered (built-ins and ASSIGNOR_PLUGINS) and a dry run of one. */
@ApiTags('assignors')
@ApiProtected()
// Cluster information and a computation on the node's CPU: an operator's, as DESCRIBE CLUSTER.
@RequireAcl({ request: 'DescribeCluster' })
@Controller('v1/assignors')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class AssignorsController {
  constructor(@Inject(COHORT_NODE) private readonly node: CohortNode) {}

  @Get()
  @ApiOkResponse({
    type: AssignorResponse,
    isArray: true,
    description: 'Built-in assignors and those of ASSIGNOR_PLUGINS.',
  })
  list(): AssignorDescription[] {
    return this.node.assignors.describe();
  }

  @Post(':name/assign')
  @HttpCode(HttpStatus.OK)
  @ApiOkResponse({
    type: AssignDryRunResponse,
    description:
      'The assignment the assignor computes; a subscribed topic missing from partitionsPerTopic gets nothing and is listed in unknownTopics.',
  })
  @ApiErrors({ 400: true, 404: 'UNSUPPORTED_ASSIGNOR (112): no assignor of that name.' })
  assign(@Param('name') name: string, @Body() body: AssignDryRunDto): DryRunResponse {
    return this.node.assignors.dryRun(name, body);
  }
}
