import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import { ANY_GROUP_STATE_NAMES, type AnyGroupStateName, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

export class ListGroupsQueryDto {
  @ApiPropertyOptional({
    example: 'Stable,Empty',
    description:
      'One state or a comma-separated list of states: the classic ones, and Assigning or Reconciling for consumer groups.',
  })
  @IsOptional()
  @Transform(({ value }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((state) => state.trim())
          .filter(Boolean)
      : value,
  )
  @IsIn(ANY_GROUP_STATE_NAMES, { each: true })
  state?: AnyGroupStateName[];

  @ApiPropertyOptional({
    example: 'orders',
    description:
      'Only the groups consuming this topic: a committed offset on it, or a member subscribed to it (needs DESCRIBE on the topic).',
  })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  topic?: string;
}
