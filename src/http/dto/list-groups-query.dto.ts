import { ApiPropertyOptional } from '@nestjs/swagger';
import { Transform } from 'class-transformer';
import { IsIn, IsOptional } from 'class-validator';
import { GROUP_STATE_NAMES, type GroupStateName } from '@cohort/protocol';

export class ListGroupsQueryDto {
  @ApiPropertyOptional({ example: 'Stable,Empty', description: 'One state or a comma-separated list of states.' })
  @IsOptional()
  @Transform(({ value }) =>
    typeof value === 'string'
      ? value
          .split(',')
          .map((state) => state.trim())
          .filter(Boolean)
      : value,
  )
  @IsIn(GROUP_STATE_NAMES, { each: true })
  state?: GroupStateName[];
}
