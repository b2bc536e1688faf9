import { Body, Controller, Get, Inject, Param, Patch, Post, Put, UseInterceptors, UsePipes } from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type { TopicInfo } from '@cohort/coordinator';
import { KafkaError } from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { CreateTopicDto } from './dto/create-topic.dto';
import { EndOffsetsDto } from './dto/end-offsets.dto';
import { GrowTopicDto } from './dto/grow-topic.dto';

/**
 * SPEC §4 topic registry: partition counts for assignors and commit validation, reported end offsets
 * for lag. Growing a topic makes the coordinator rebalance the `consumer` groups subscribed to it (the
 * registry notifies it; nothing here decides that).
 */
@ApiTags('topics')
@Controller('v1/topics')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class TopicsController {
  constructor(@Inject(COHORT_NODE) private readonly node: CohortNode) {}

  @Get()
  @ApiOkResponse({ description: '[{ name, partitions, endOffsets, startOffsets, reportedAt }]' })
  list(): TopicInfo[] {
    return this.node.topics.list();
  }

  @Post()
  @ApiCreatedResponse({ description: 'The new topic; 400 INVALID_REQUEST if it exists or the name is not legal.' })
  create(@Body() body: CreateTopicDto): Promise<TopicInfo> {
    return this.node.topics.create(body.name, body.partitions);
  }

  @Get(':name')
  @ApiOkResponse({ description: '{ name, partitions, endOffsets }; 404 UNKNOWN_TOPIC_OR_PARTITION.' })
  get(@Param('name') name: string): TopicInfo {
    const topic = this.node.topics.get(name);
    if (!topic) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`);
    return topic;
  }

  @Patch(':name')
  @ApiOkResponse({ description: 'The grown topic; shrinking is refused (400 INVALID_REQUEST).' })
  grow(@Param('name') name: string, @Body() body: GrowTopicDto): Promise<TopicInfo> {
    return this.node.topics.setPartitions(name, body.partitions);
  }

  @Put(':name/end-offsets')
  @ApiOkResponse({ description: 'The topic with the reported log end (and start) offsets merged in, each stamped with when it arrived (`reportedAt`).' })
  reportEndOffsets(@Param('name') name: string, @Body() body: EndOffsetsDto): Promise<TopicInfo> {
    return this.node.topics.setEndOffsets(name, body.partitions);
  }
}
