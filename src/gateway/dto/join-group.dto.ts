import { Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min, MinLength, ValidateNested } from 'class-validator';
import type { JoinGroupProtocol, JoinGroupRequest } from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { IsOpaqueJson } from '../contract/schema-decorators';

class JoinGroupProtocolDto implements JoinGroupProtocol {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  name: string;

  /** Opaque to the gateway; for protocolType 'consumer' the coordinator reads it as a Subscription. */
  @IsOpaqueJson('Subscription')
  metadata: unknown;
}

export class JoinGroupDto implements JoinGroupRequest {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  sessionTimeoutMs: number;

  @IsOptional()
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  rebalanceTimeoutMs?: number;

  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;

  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  protocolType: string;

  @IsArray()
  @ValidateNested({ each: true })
  @Type(() => JoinGroupProtocolDto)
  protocols: JoinGroupProtocolDto[];

  @IsOptional()
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  reason?: string | null;

  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  serverAssignor?: string | null;
}
