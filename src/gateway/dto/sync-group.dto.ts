import { Type } from 'class-transformer';
import { IsArray, IsDefined, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import type { SyncGroupAssignment, SyncGroupRequest } from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from './field-limits';

class SyncGroupAssignmentDto implements SyncGroupAssignment {
  @IsString() @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsDefined()
  assignment: unknown;
}

export class SyncGroupDto implements SyncGroupRequest {
  @IsString() @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsInt() @Min(INT32_MIN) @Max(INT32_MAX)
  generationId: number;

  @IsString() @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsOptional() @IsString() @MinLength(1) @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH)
  protocolType?: string | null;

  @IsOptional() @IsString() @MaxLength(MAX_ID_LENGTH)
  protocolName?: string | null;

  @IsArray() @ValidateNested({ each: true }) @Type(() => SyncGroupAssignmentDto)
  assignments: SyncGroupAssignmentDto[];
}
