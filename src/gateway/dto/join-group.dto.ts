import { Type } from 'class-transformer';
import {
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import type { JoinGroupProtocol, JoinGroupRequest } from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe, IsOpaqueJson } from '../contract/schema-decorators';

class JoinGroupProtocolDto implements JoinGroupProtocol {
  @Describe('Assignor (protocol) name, e.g. cooperative-sticky.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  name: string;

  /** Opaque to the gateway; for protocolType 'consumer' the coordinator reads it as a Subscription. */
  @IsOpaqueJson('Subscription')
  metadata: unknown;
}

export class JoinGroupDto implements JoinGroupRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @Describe('Within GROUP_MIN/MAX_SESSION_TIMEOUT_MS, else 26 INVALID_SESSION_TIMEOUT.')
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  sessionTimeoutMs: number;

  @Describe('How long the coordinator waits for members to rejoin; defaults to sessionTimeoutMs.')
  @IsOptional()
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  rebalanceTimeoutMs?: number;

  @Describe("The member id the coordinator gave (empty on a new member's first JoinGroup).")
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @Describe('Static membership (KIP-345): a stable id of this consumer instance.')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;

  @Describe("'consumer' for consumer groups; others are opaque to the coordinator.")
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  protocolType: string;

  @Describe('In order of preference; the group votes.')
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => JoinGroupProtocolDto)
  protocols: JoinGroupProtocolDto[];

  @Describe('Why the member (re)joins, for the rebalance history.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  reason?: string | null;

  @Describe('Ask the coordinator to assign with this registered assignor (all members must name the same).')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  serverAssignor?: string | null;
}
