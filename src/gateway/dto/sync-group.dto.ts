import { Type } from 'class-transformer';
import { IsArray, IsObject, IsOptional, IsString, MaxLength, ValidateNested } from 'class-validator';
import type { SyncGroupAssignment, SyncGroupRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';
import { Describe, IsOpaqueJson } from '../contract/schema-decorators';
import { GroupMemberRequestDto } from './group-member-request.dto';

class SyncGroupAssignmentDto implements SyncGroupAssignment {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsOpaqueJson('MemberAssignment')
  assignment: unknown;
}

export class SyncGroupDto extends GroupMemberRequestDto implements SyncGroupRequest {
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  protocolType?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  protocolName?: string | null;

  @Describe('Only the leader sends assignments; others send [].')
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => SyncGroupAssignmentDto)
  assignments: SyncGroupAssignmentDto[];
}
