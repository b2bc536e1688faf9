import {
  Body,
  Controller,
  Get,
  HttpCode,
  HttpStatus,
  Inject,
  Param,
  Post,
  Req,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { ApiOkResponse, ApiTags } from '@nestjs/swagger';
import type * as P from '@cohort/protocol';
import { ErrorCode, type ErrorCodeValue, KafkaError } from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { AuthorizationService } from '../security/authorization/authorization.service';
import { callerOfRequest } from '../security/authorization/caller-of';
import { fromBody, fromParam, RequireAcl } from '../security/authorization/route-acl.decorator';
import type { PrincipalRequest } from '../security/principal';
import { RedeliverDeadLettersDto } from './dto/redeliver-dead-letters.dto';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { DeadLettersResponse, RedeliverDeadLettersResponse } from './responses/dead-letters.response';

/**
 * docs/rest.md share groups: a share group's dead letters (offsets archived because a member rejected
 * them or they reached the delivery limit) and their redelivery, the one way an archived offset comes
 * back. Reading them is an offsets read; redelivering is an offset change, audited.
 */
@ApiTags('groups')
@ApiProtected()
@Controller('v1/groups/:groupId/dead-letters')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class DeadLettersController {
  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly authorization: AuthorizationService,
  ) {}

  @Get()
  @RequireAcl({ request: 'OffsetFetch', group: fromParam('groupId'), filtered: true })
  @ApiOkResponse({
    type: DeadLettersResponse,
    description: 'Archived ranges with their reason and delivery count; only the topics the caller may describe.',
  })
  @ApiErrors({ 404: 'GROUP_ID_NOT_FOUND (69): no share group of that id.', 503: true })
  async list(@Param('groupId') groupId: string, @Req() request: PrincipalRequest): Promise<P.DeadLetters> {
    // An id that names no group is 404, as every group route answers it.
    await this.node.coordinator.describeGroup(groupId);
    const found = await this.node.coordinator.shareDeadLetters(groupId);
    // As an all-topics OffsetFetch: ranges of topics the caller may not describe are left out.
    const deadLetters = this.authorization.filter(
      callerOfRequest(request),
      'DESCRIBE',
      'TOPIC',
      found,
      (range) => range.topic,
    );
    return { groupId, deadLetters };
  }

  @Post('redeliver')
  @HttpCode(HttpStatus.OK)
  @RequireAcl({ request: 'OffsetCommit', group: fromParam('groupId'), topics: fromBody('topic'), change: true })
  @ApiOkResponse({
    type: RedeliverDeadLettersResponse,
    description:
      'The dead letters of the range are available again, counted from zero, once the change is committed; below SPSO, SPSO moves back to them under a new state epoch.',
  })
  @ApiErrors({
    400: true,
    404: 'GROUP_ID_NOT_FOUND (69): no share group of that id, or no state for that partition.',
    503: true,
  })
  async redeliver(
    @Param('groupId') groupId: string,
    @Body() body: RedeliverDeadLettersDto,
  ): Promise<P.RedeliverDeadLettersResult> {
    const { topic, partition, firstOffset, lastOffset } = body;
    const done = await this.node.coordinator.redeliverDeadLetters({
      groupId,
      topic,
      partition,
      firstOffset,
      lastOffset,
    });
    if (done.errorCode !== ErrorCode.NONE)
      throw new KafkaError(done.errorCode as ErrorCodeValue, `the redelivery of ${topic}-${partition} was not written`);
    // Where SPSO stands now (moved back when dead letters lay below it).
    const group = await this.node.coordinator.describeGroup(groupId);
    const state = group.sharePartitions?.find((p) => p.topic === topic && p.partition === partition);
    return {
      groupId,
      topic,
      partition,
      redelivered: done.redelivered,
      startOffset: state?.startOffset ?? firstOffset,
      stateEpoch: state?.stateEpoch ?? 0,
    };
  }
}
