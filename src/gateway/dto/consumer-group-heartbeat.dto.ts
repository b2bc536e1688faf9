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
import type { ConsumerGroupHeartbeatRequest, TopicPartitions } from '@cohort/protocol';
import { INT32_MAX, MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

class OwnedTopicPartitionsDto implements TopicPartitions {
  @Describe('A topic name.')
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  topic: string;

  @Describe('The partitions of the topic the member owns.')
  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(INT32_MAX, { each: true })
  partitions: number[];
}

/**
 * Kafka 4's consumer group heartbeat (KIP-848): joins with memberEpoch 0, leaves with -1 (-2: a static
 * member away for now), and otherwise reports the member's epoch and owned partitions; fields left out
 * or null are unchanged since the member's last heartbeat.
 */
export class ConsumerGroupHeartbeatDto implements ConsumerGroupHeartbeatRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @Describe(
    'Chosen by the client (a UUID, KIP-1082) and sent from the first heartbeat on; empty is 42 INVALID_REQUEST.',
  )
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @Describe('0 joins, -1 leaves, -2 leaves for now (static members), else the epoch the coordinator gave.')
  @IsInt()
  @Min(-2)
  @Max(INT32_MAX)
  memberEpoch: number;

  @Describe('Static membership: a stable id of this consumer instance.')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  instanceId?: string | null;

  @Describe('The rack of the member, for rack-aware assignors.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  rackId?: string | null;

  @Describe('How long the member may take to revoke partitions before it is fenced; -1: unchanged.')
  @IsOptional()
  @IsInt()
  @Min(-1)
  @Max(INT32_MAX)
  rebalanceTimeoutMs?: number | null;

  @Describe('The topics the member subscribes to; null: unchanged.')
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_TOPIC_NAME_LENGTH, { each: true })
  subscribedTopicNames?: string[] | null;

  @Describe('An RE2 expression the topics are matched against; null: unchanged.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_REASON_LENGTH)
  subscribedTopicRegex?: string | null;

  @Describe('The server assignor the member asks for (uniform, range or a plugin); null: unchanged.')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  serverAssignor?: string | null;

  @Describe('The partitions the member owns; sent when they changed, and after an error or a reconnect.')
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OwnedTopicPartitionsDto)
  topicPartitions?: OwnedTopicPartitionsDto[] | null;
}
