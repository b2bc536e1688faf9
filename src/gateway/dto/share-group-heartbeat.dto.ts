import { IsArray, IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import type { ShareGroupHeartbeatRequest } from '@cohort/protocol';
import { INT32_MAX, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

/**
 * A share group member's heartbeat (KIP-932): joins with memberEpoch 0 (naming its topics), leaves
 * with -1, and otherwise reports its epoch; fields left out or null are unchanged. There is nothing to
 * revoke: the answer's assignment is the member's whole assignment, possibly shared with others.
 */
export class ShareGroupHeartbeatDto implements ShareGroupHeartbeatRequest {
  @Describe('The share group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @Describe('Chosen by the client (a UUID, at most 36 characters) and kept for the life of the member.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @Describe('0 joins, -1 leaves, else the epoch the coordinator gave.')
  @IsInt()
  @Min(-1)
  @Max(INT32_MAX)
  memberEpoch: number;

  @Describe('The rack of the member.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  rackId?: string | null;

  @Describe('The topics the member subscribes to: required when joining; null: unchanged.')
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_TOPIC_NAME_LENGTH, { each: true })
  subscribedTopicNames?: string[] | null;
}
