import {
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Inject,
  Param,
  Query,
  Req,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { ApiNoContentResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { GroupDescriptionResponse } from './responses/group-description.response';
import { GroupLagResponse } from './responses/group-lag.response';
import { GroupListingResponse } from './responses/group-listing.response';
import { RebalanceRecordResponse } from './responses/rebalance-record.response';
import { groupLagOf, type GroupView, type RebalanceView } from '@cohort/coordinator';
import { ErrorCode, errorName, KafkaError, type ErrorCodeValue, type GroupLag } from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { AuthorizationService } from '../security/authorization/authorization.service';
import { callerOfRequest } from '../security/authorization/caller-of';
import { fromParam, RequireAcl } from '../security/authorization/route-acl.decorator';
import type { PrincipalRequest } from '../security/principal';
import { ListGroupsQueryDto } from './dto/list-groups-query.dto';
import { topicsShownBy } from './group-topics-shown';

/** docs/rest.md groups: list, describe, delete, rebalance history. */
@ApiTags('groups')
@ApiProtected()
@Controller('v1/groups')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class GroupsController {
  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly authorization: AuthorizationService,
  ) {}

  @Get()
  @RequireAcl({ request: 'ListGroups', filtered: true })
  @ApiOkResponse({
    type: GroupListingResponse,
    isArray: true,
    description:
      'Every group of the cluster (in cluster mode, merged from every live node); only those the caller may describe; with `topic`, only those consuming it.',
  })
  @ApiErrors({
    400: 'INVALID_REQUEST (42): an unknown state, or a bad topic name.',
    403: 'With `topic`: DESCRIBE on the topic (29 TOPIC_AUTHORIZATION_FAILED).',
    503: 'COORDINATOR_NOT_AVAILABLE (15): no node of the cluster answered.',
  })
  async list(@Query() query: ListGroupsQueryDto, @Req() request: PrincipalRequest) {
    const caller = callerOfRequest(request);
    // Which groups consume a topic tells of the topic: DESCRIBE on it, as a Metadata request needs.
    if (query.topic !== undefined && !this.authorization.check(caller, 'DESCRIBE', 'TOPIC', query.topic, 'ListGroups'))
      throw KafkaError.of('TOPIC_AUTHORIZATION_FAILED', `${caller.principal} may not DESCRIBE topic '${query.topic}'`);
    const groups = this.authorization.visibleGroups(
      caller,
      await this.node.coordinator.listGroupSummaries(query.state, query.topic),
      (group) => group.groupId,
    );
    return groups.map((group) => ({ ...group, coordinator: this.coordinatorOf(group.groupId) }));
  }

  @Get(':groupId')
  @RequireAcl({ request: 'DescribeGroups', group: fromParam('groupId') })
  @ApiOkResponse({
    type: GroupDescriptionResponse,
    description: 'The group with its members, subscriptions and assignments.',
  })
  @ApiErrors({
    403: 'A consumer or share group that shows a topic the caller may not DESCRIBE (29 TOPIC_AUTHORIZATION_FAILED), as Kafka 4 answers.',
    404: 'GROUP_ID_NOT_FOUND (69).',
    503: true,
  })
  async describe(
    @Param('groupId') groupId: string,
    @Req() request: PrincipalRequest,
  ): Promise<GroupView & { coordinator: number | null }> {
    const group = await this.node.coordinator.describeGroup(groupId);
    const hidden = this.authorization.refusedOf(
      callerOfRequest(request),
      'DESCRIBE',
      'TOPIC',
      topicsShownBy(group),
      group.type === 'share' ? 'ShareGroupDescribe' : 'ConsumerGroupDescribe',
    );
    if (hidden.size > 0)
      throw KafkaError.of(
        'TOPIC_AUTHORIZATION_FAILED',
        'The group has described topic(s) that the client is not authorized to describe.',
      );
    return { ...group, coordinator: this.coordinatorOf(groupId) };
  }

  @Delete(':groupId')
  @HttpCode(HttpStatus.NO_CONTENT)
  @RequireAcl({ request: 'DeleteGroups', group: fromParam('groupId'), change: true })
  @ApiNoContentResponse({ description: 'Deleted, with its offsets.' })
  @ApiErrors({
    404: 'GROUP_ID_NOT_FOUND (69).',
    409: 'NON_EMPTY_GROUP (68): the group still has members.',
    503: true,
  })
  async delete(@Param('groupId') groupId: string): Promise<void> {
    const response = await this.node.coordinator.deleteGroups({ groupsNames: [groupId] });
    const errorCode =
      response.errorCode !== ErrorCode.NONE ? response.errorCode : (response.results[0]?.errorCode ?? ErrorCode.NONE);
    if (errorCode !== ErrorCode.NONE)
      throw new KafkaError(errorCode as ErrorCodeValue, deleteRefusal(groupId, errorCode));
  }

  @Get(':groupId/rebalances')
  @RequireAcl({ request: 'DescribeGroups', group: fromParam('groupId') })
  @ApiOkResponse({ type: RebalanceRecordResponse, isArray: true, description: 'Recent rebalances, oldest first.' })
  @ApiErrors({ 404: 'GROUP_ID_NOT_FOUND (69).', 503: true })
  rebalances(@Param('groupId') groupId: string): Promise<RebalanceView[]> {
    return this.node.coordinator.rebalanceHistory(groupId);
  }

  @Get(':groupId/lag')
  @RequireAcl({ request: 'OffsetFetch', group: fromParam('groupId'), filtered: true })
  @ApiOkResponse({
    type: GroupLagResponse,
    description:
      "Lag and time lag per partition with Burrow's evaluation (OK, WARN, ERR, STOP, STALL, UNKNOWN), docs/lag.md; only the topics the caller may describe.",
  })
  @ApiErrors({ 404: 'GROUP_ID_NOT_FOUND (69).', 503: true })
  async lag(@Param('groupId') groupId: string, @Req() request: PrincipalRequest): Promise<GroupLag> {
    const lag = await this.node.coordinator.groupLag(groupId);
    // As an all-topics OffsetFetch: partitions of topics the caller may not describe are left out.
    const visible = this.authorization.filter(
      callerOfRequest(request),
      'DESCRIBE',
      'TOPIC',
      lag.partitions,
      (partition) => partition.topic,
    );
    return visible.length === lag.partitions.length ? lag : groupLagOf(groupId, visible);
  }

  private coordinatorOf(groupId: string): number | null {
    return this.node.cluster.leaderOf(this.node.coordinator.partitionFor(groupId))?.nodeId ?? null;
  }
}

function deleteRefusal(groupId: string, errorCode: number): string {
  switch (errorCode) {
    case ErrorCode.GROUP_ID_NOT_FOUND:
      return `group '${groupId}' does not exist`;
    case ErrorCode.NON_EMPTY_GROUP:
      return `group '${groupId}' still has members; only an Empty group can be deleted`;
    default:
      return `cannot delete group '${groupId}': ${errorName(errorCode)}`;
  }
}
