import { Body, Controller, Get, Inject, Param, Patch, Post, Put, Req, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { TopicResponse } from './responses/topic.response';
import type { TopicInfo } from '@cohort/coordinator';
import { KafkaError } from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { AuthorizationService } from '../security/authorization/authorization.service';
import { callerOfRequest } from '../security/authorization/caller-of';
import { fromBody, fromParam, RequireAcl } from '../security/authorization/route-acl.decorator';
import { CreationLimits } from '../security/limits/creation-limits';
import type { PrincipalRequest } from '../security/principal';
import { CreateTopicDto } from './dto/create-topic.dto';
import { EndOffsetsDto } from './dto/end-offsets.dto';
import { GrowTopicDto } from './dto/grow-topic.dto';

/**
 * docs/rest.md topic registry: partition counts for assignors and commit validation, reported end offsets
 * for lag. Growing a topic makes the coordinator rebalance the `consumer` groups subscribed to it (the
 * registry notifies it; nothing here decides that).
 */
@ApiTags('topics')
@ApiProtected()
@Controller('v1/topics')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class TopicsController {
  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly authorization: AuthorizationService,
    private readonly limits: CreationLimits,
  ) {}

  @Get()
  @RequireAcl({ request: 'Metadata', filtered: true })
  @ApiOkResponse({ type: TopicResponse, isArray: true, description: 'Only the topics the caller may describe.' })
  list(@Req() request: PrincipalRequest): TopicInfo[] {
    return this.authorization.filter(
      callerOfRequest(request),
      'DESCRIBE',
      'TOPIC',
      this.node.topics.list(),
      (topic) => topic.name,
    );
  }

  @Post()
  @RequireAcl({ request: 'CreateTopic', topics: fromBody('name'), change: true })
  @ApiCreatedResponse({ type: TopicResponse, description: 'The new topic.' })
  @ApiErrors({
    400: 'INVALID_REQUEST (42): the topic exists, or its name or count is not legal.',
    429: 'THROTTLING_QUOTA_EXCEEDED (89): over MAX_TOPICS_PER_PRINCIPAL (docs/security.md).',
    503: true,
  })
  create(@Body() body: CreateTopicDto, @Req() request: PrincipalRequest): Promise<TopicInfo> {
    // Within MAX_TOPICS_PER_PRINCIPAL, else 429 with error 89 (docs/security.md).
    return this.limits.creatingTopic(callerOfRequest(request), body.name, () =>
      this.node.topics.create(body.name, body.partitions),
    );
  }

  @Get(':name')
  @RequireAcl({ request: 'Metadata', topics: fromParam('name') })
  @ApiOkResponse({ type: TopicResponse })
  @ApiErrors({ 404: 'UNKNOWN_TOPIC_OR_PARTITION (3).' })
  get(@Param('name') name: string): TopicInfo {
    const topic = this.node.topics.get(name);
    if (!topic) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`);
    return topic;
  }

  @Patch(':name')
  @RequireAcl({ request: 'AlterTopic', topics: fromParam('name'), change: true })
  @ApiOkResponse({
    type: TopicResponse,
    description: 'The grown topic; the consumer groups subscribed to it rebalance.',
  })
  @ApiErrors({
    400: 'INVALID_REQUEST (42): a count that is not larger (counts only grow).',
    404: 'UNKNOWN_TOPIC_OR_PARTITION (3).',
    503: true,
  })
  grow(@Param('name') name: string, @Body() body: GrowTopicDto): Promise<TopicInfo> {
    return this.node.topics.setPartitions(name, body.partitions);
  }

  @Put(':name/end-offsets')
  @RequireAcl({ request: 'ReportEndOffsets', topics: fromParam('name') })
  @ApiOkResponse({
    type: TopicResponse,
    description:
      "The topic with the reports merged in, each stamped with when it arrived (`reportedAt`) and added to its partition's time index (docs/lag.md).",
  })
  @ApiErrors({
    400: 'INVALID_REQUEST (42): a bad offset or timestamp; INVALID_TIMESTAMP (32): a timestamp more than an hour ahead of the node.',
    404: 'UNKNOWN_TOPIC_OR_PARTITION (3): the topic or one of the partitions does not exist (nothing is stored).',
    503: true,
  })
  reportEndOffsets(@Param('name') name: string, @Body() body: EndOffsetsDto): Promise<TopicInfo> {
    return this.node.topics.setEndOffsets(name, body.partitions);
  }
}
