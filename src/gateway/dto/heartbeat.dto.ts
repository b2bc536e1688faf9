import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import type { HeartbeatRequest } from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from './field-limits';

export class HeartbeatDto implements HeartbeatRequest {
  @IsString() @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsInt() @Min(INT32_MIN) @Max(INT32_MAX)
  generationId: number;

  @IsString() @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsOptional() @IsString() @MinLength(1) @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;
}
