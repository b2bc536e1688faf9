import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import type { LeaveGroupMember, LeaveGroupRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

class LeaveGroupMemberDto implements LeaveGroupMember {
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

  @Describe('Why the member leaves, for the rebalance history.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  reason?: string | null;
}

export class LeaveGroupDto implements LeaveGroupRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => LeaveGroupMemberDto)
  members: LeaveGroupMemberDto[];
}
