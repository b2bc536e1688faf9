import { ApiProperty } from '@nestjs/swagger';
import { IsString, MaxLength } from 'class-validator';
import { MAX_ID_LENGTH } from '@cohort/protocol';

export class CoordinatorQueryDto {
  @ApiProperty({ example: 'my-group' })
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;
}
