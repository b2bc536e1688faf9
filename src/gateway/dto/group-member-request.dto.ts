import { IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength } from 'class-validator';
import { INT32_MAX, NO_GENERATION_ID, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

/** The identity every request of a group member carries (Heartbeat, SyncGroup): group, generation, member. */
export class GroupMemberRequestDto {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @Describe('The generation the member belongs to.')
  @IsInt()
  @Min(NO_GENERATION_ID)
  @Max(INT32_MAX)
  generationId: number;

  @Describe('The member id the coordinator gave.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @Describe('Static membership (KIP-345): a stable id of this consumer instance.')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;
}
