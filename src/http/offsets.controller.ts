import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Inject,
  Param,
  Post,
  Query,
  Req,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { GroupOffsetsResponse } from './responses/group-offsets.response';
import { OffsetsWriteResponse } from './responses/offsets-write.response';
import { ResetOffsetsResponse } from './responses/reset-offsets.response';
import { lagTotals } from '@cohort/coordinator';
import {
  type CommittedOffsetWithLag,
  ErrorCode,
  type GroupOffsets,
  errorName,
  KafkaError,
  type ErrorCodeValue,
  type ResetOffsetsResult,
  type TopicPartitionErrors,
} from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { AuthorizationService } from '../security/authorization/authorization.service';
import { callerOfRequest } from '../security/authorization/caller-of';
import { fromBodyTopics, fromParam, fromQuery, RequireAcl } from '../security/authorization/route-acl.decorator';
import type { PrincipalRequest } from '../security/principal';
import { DeleteOffsetsQueryDto } from './dto/delete-offsets-query.dto';
import { ResetOffsetsDto } from './dto/reset-offsets.dto';
import { ResetOffsetsByStrategyDto } from './dto/reset-offsets-strategy.dto';

/**
 * docs/rest.md offsets of a group: read with lag, reset while Empty (a share group's start offsets),
 * delete (OffsetDelete semantics).
 */
@ApiTags('offsets')
@ApiProtected()
@Controller('v1/groups/:groupId/offsets')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class OffsetsController {
  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly authorization: AuthorizationService,
  ) {}

  @Get()
  @RequireAcl({ request: 'OffsetFetch', group: fromParam('groupId'), filtered: true })
  @ApiOkResponse({
    type: GroupOffsetsResponse,
    description:
      'Committed offsets with lag and time lag against the reported end offsets (docs/lag.md); only the topics the caller may describe.',
  })
  @ApiErrors({ 404: 'GROUP_ID_NOT_FOUND (69).', 503: true })
  async read(@Param('groupId') groupId: string, @Req() request: PrincipalRequest): Promise<GroupOffsets> {
    // As an all-topics OffsetFetch: topics the caller may not describe are left out.
    const committed = this.authorization.filter(
      callerOfRequest(request),
      'DESCRIBE',
      'TOPIC',
      await this.node.coordinator.committedOffsets(groupId),
      (offset) => offset.topic,
    );
    // One registry read per topic, not per partition: a read copies the topic's reported end offsets.
    const endOffsets = new Map<string, Record<number, number> | undefined>();
    const endOffsetsOf = (topic: string): Record<number, number> | undefined => {
      if (!endOffsets.has(topic)) endOffsets.set(topic, this.node.topics.get(topic)?.endOffsets);
      return endOffsets.get(topic);
    };
    const now = Date.now();
    const offsets = committed.map((offset): CommittedOffsetWithLag => {
      // Lag is measured against what producers reported (PUT /v1/topics/:name/end-offsets); a committed
      // offset past a stale report is no lag, not a negative one. Time lag: docs/lag.md.
      const logEndOffset = endOffsetsOf(offset.topic)?.[offset.partition] ?? null;
      const lag = logEndOffset === null ? null : Math.max(0, logEndOffset - offset.committedOffset);
      const timeLagMs =
        lag === null
          ? null
          : lag === 0
            ? 0
            : this.node.topics.timeLagMs(offset.topic, offset.partition, offset.committedOffset, now);
      return { ...offset, logEndOffset, lag, timeLagMs };
    });
    const { totalLag, maxTimeLagMs } = lagTotals(offsets);
    return { groupId, offsets, totalLag, maxTimeLagMs };
  }

  @Post()
  @HttpCode(HttpStatus.OK)
  @RequireAcl({ request: 'OffsetCommit', group: fromParam('groupId'), topics: fromBodyTopics(), change: true })
  @ApiOkResponse({
    type: OffsetsWriteResponse,
    description:
      "Offsets set, once committed; only while the group is Empty. A share group's are its share-partition start offsets (SPSO), each partition started afresh there.",
  })
  @ApiErrors({
    400: true,
    404: 'UNKNOWN_TOPIC_OR_PARTITION (3): a topic or partition the registry does not know.',
    409: 'NON_EMPTY_GROUP (68): the group has members.',
    503: true,
  })
  async reset(
    @Param('groupId') groupId: string,
    @Body() body: ResetOffsetsDto,
  ): Promise<{ topics: TopicPartitionErrors[] }> {
    const response = await this.node.coordinator.resetOffsets(groupId, body.topics);
    return { topics: throwOnError(response, `cannot reset offsets of group '${groupId}'`) };
  }

  @Post('reset')
  @HttpCode(HttpStatus.OK)
  @RequireAcl({ request: 'OffsetCommit', group: fromParam('groupId'), topics: fromBodyTopics(), change: true })
  @ApiOkResponse({
    type: ResetOffsetsResponse,
    description:
      "A dry run (the default) changes nothing; dryRun: false commits exactly the offsets shown, only while the group is Empty, and answers once they are committed (docs/operations.md). A share group's offsets are its share-partition start offsets (SPSO): each partition reset starts afresh there under a new state epoch.",
  })
  @ApiErrors({
    400: 'INVALID_REQUEST (42): no partitions or both ways chosen, a missing value, an unreadable datetime or duration, no end offset reported to reset to.',
    404: 'UNKNOWN_TOPIC_OR_PARTITION (3): a topic or partition the registry does not know.',
    409: 'NON_EMPTY_GROUP (68): executing while the group has members.',
    503: true,
  })
  async resetByStrategy(
    @Param('groupId') groupId: string,
    @Body() body: ResetOffsetsByStrategyDto,
    @Req() request: PrincipalRequest,
  ): Promise<ResetOffsetsResult> {
    if (!body.allTopics) return this.node.coordinator.resetOffsetsTo(groupId, body);
    // With allTopics the body names no topic for AclGuard: the preview names them, and every one of them
    // needs READ before anything is shown or written (as a commit of those offsets would).
    const preview = await this.node.coordinator.resetOffsetsTo(groupId, { ...body, dryRun: true });
    const caller = callerOfRequest(request);
    const denied = [
      ...this.authorization.refusedOf(
        caller,
        'READ',
        'TOPIC',
        preview.offsets.map((offset) => offset.topic),
        'OffsetCommit',
      ),
    ];
    if (denied.length > 0)
      throw KafkaError.of(
        'TOPIC_AUTHORIZATION_FAILED',
        `${caller.principal} may not read topic${denied.length > 1 ? 's' : ''} ${denied.map((t) => `'${t}'`).join(', ')}`,
      );
    return body.dryRun === false ? this.node.coordinator.resetOffsetsTo(groupId, body) : preview;
  }

  @Delete()
  @RequireAcl({ request: 'OffsetDelete', group: fromParam('groupId'), topics: fromQuery('topic'), change: true })
  @ApiOkResponse({ type: OffsetsWriteResponse, description: 'Offsets deleted (OffsetDelete).' })
  @ApiErrors({
    400: true,
    404: 'GROUP_ID_NOT_FOUND (69), or UNKNOWN_TOPIC_OR_PARTITION (3).',
    409: 'GROUP_SUBSCRIBED_TO_TOPIC (86): the group still consumes the topic.',
    503: true,
  })
  async delete(
    @Param('groupId') groupId: string,
    @Query() query: DeleteOffsetsQueryDto,
  ): Promise<{ topics: TopicPartitionErrors[] }> {
    const partitions =
      query.partition !== undefined
        ? [query.partition]
        : (await this.node.coordinator.committedOffsets(groupId))
            .filter((offset) => offset.topic === query.topic)
            .map((offset) => offset.partition);
    const response = await this.node.coordinator.offsetDelete({
      groupId,
      topics: [{ name: query.topic, partitions: partitions.map((partitionIndex) => ({ partitionIndex })) }],
    });
    return { topics: throwOnError(response, `cannot delete offsets of group '${groupId}'`) };
  }
}

/**
 * REST answers with one status: a request-level error, or the first per-partition error (naming every
 * failed partition), becomes the HTTP error; otherwise the per-partition results are returned.
 */
function throwOnError(
  response: { errorCode: number; errorMessage?: string; topics: TopicPartitionErrors[] },
  what: string,
): TopicPartitionErrors[] {
  if (response.errorCode !== ErrorCode.NONE) {
    throw new KafkaError(
      response.errorCode as ErrorCodeValue,
      `${what}: ${response.errorMessage ?? errorName(response.errorCode)}`,
    );
  }
  const failed = response.topics.flatMap((topic) =>
    topic.partitions
      .filter((partition) => partition.errorCode !== ErrorCode.NONE)
      .map((partition) => ({ topic: topic.name, ...partition })),
  );
  if (failed.length > 0) {
    const list = failed.map((f) => `${f.topic}-${f.partitionIndex}: ${errorName(f.errorCode)}`).join(', ');
    throw new KafkaError(failed[0].errorCode as ErrorCodeValue, `${what}: ${list}`);
  }
  return response.topics;
}
