import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  ValidateNested,
} from 'class-validator';
import type { DryRunRequest } from '@cohort/assignors';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { NameMap } from '../../common/name-maps';
import { MAX_TOPIC_PARTITIONS } from './rest-limits';

/** Bounds the work one dry run can ask for (members × partitions), like a real group's size would. */
const MAX_DRY_RUN_MEMBERS = 10_000;

class OwnedPartitionsDto {
  @ApiProperty({ example: 'orders' })
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  topic: string;

  @ApiProperty({ example: [0, 1] })
  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(MAX_TOPIC_PARTITIONS, { each: true })
  partitions: number[];
}

class DryRunMemberDto {
  @ApiProperty({ example: 'm1' })
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @ApiPropertyOptional({ example: null, nullable: true })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;

  @ApiProperty({ example: ['orders'] })
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_TOPIC_NAME_LENGTH, { each: true })
  topics: string[];

  @ApiPropertyOptional({ type: () => [OwnedPartitionsDto] })
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OwnedPartitionsDto)
  ownedPartitions?: OwnedPartitionsDto[];

  @ApiPropertyOptional({ example: 3 })
  @IsOptional()
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  generationId?: number;

  @ApiPropertyOptional({ description: "Assignor-specific data, as the member's subscription carries it." })
  @IsOptional()
  userData?: unknown;

  @ApiPropertyOptional({ example: 'rack-a', nullable: true, description: 'For rack-aware assignment (KIP-881).' })
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  rackId?: string | null;
}

export class AssignDryRunDto implements DryRunRequest {
  @ApiProperty({ example: { orders: 6 }, description: 'topic → partition count' })
  @NameMap()
  @ValidateBy({
    name: 'isPartitionCounts',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'object' &&
        value !== null &&
        !Array.isArray(value) &&
        Object.values(value).every((count) => Number.isInteger(count) && count >= 0 && count <= MAX_TOPIC_PARTITIONS),
      defaultMessage: () =>
        `partitionsPerTopic must map topic names to partition counts between 0 and ${MAX_TOPIC_PARTITIONS}`,
    },
  })
  partitionsPerTopic: Record<string, number>;

  @ApiPropertyOptional({
    description: 'topic → one entry per partition → racks of its replicas (KIP-881)',
    example: { orders: [['rack-a'], ['rack-b']] },
  })
  @IsOptional()
  @IsObject()
  @NameMap()
  partitionRacks?: Record<string, (string | null)[][]>;

  @ApiPropertyOptional({
    enum: ['classic', 'consumer'],
    default: 'classic',
    description:
      "consumer: run the consumer group (server) assignor of that name (uniform, range or a plugin), each member's ownedPartitions being its current target.",
  })
  @IsOptional()
  @IsIn(['classic', 'consumer'])
  groupType?: 'classic' | 'consumer';

  @ApiProperty({ type: () => [DryRunMemberDto] })
  @IsArray()
  @ArrayMaxSize(MAX_DRY_RUN_MEMBERS)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => DryRunMemberDto)
  members: DryRunMemberDto[];
}
