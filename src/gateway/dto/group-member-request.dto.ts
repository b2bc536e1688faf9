import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { INT32_MAX, NO_GENERATION_ID, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

/** The identity every request of a group member carries (Heartbeat, SyncGroup): group, generation, member. */
export class GroupMemberRequestDto {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsInt()
  @Min(NO_GENERATION_ID)
  @Max(INT32_MAX)
  generationId: number;

  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;
}
