import { Type } from 'class-transformer';
import { IsArray, IsOptional, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import type { LeaveGroupMember, LeaveGroupRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

class LeaveGroupMemberDto implements LeaveGroupMember {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  reason?: string | null;
}

export class LeaveGroupDto implements LeaveGroupRequest {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => LeaveGroupMemberDto)
  members: LeaveGroupMemberDto[];
}
