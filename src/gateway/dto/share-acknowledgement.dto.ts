import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  IsArray,
  IsInt,
  IsObject,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { ShareAcknowledgement, ShareAcknowledgementBatch } from '@cohort/protocol';
import { INT32_MAX, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

/** The most per-offset types one batch carries: GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS' ceiling in Kafka. */
const MAX_ACKNOWLEDGE_TYPES = 10_000;

export class ShareAcknowledgementBatchDto implements ShareAcknowledgementBatch {
  @Describe('The first offset of the batch.')
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  firstOffset: number;

  @Describe('The last offset of the batch (inclusive).')
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  lastOffset: number;

  @Describe('0 GAP, 1 ACCEPT, 2 RELEASE, 3 REJECT, 4 RENEW: one for the whole batch, or one per offset.')
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ACKNOWLEDGE_TYPES)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(4, { each: true })
  acknowledgeTypes: number[];
}

/** One partition's acknowledgements, in ascending batches that do not overlap. */
export class ShareAcknowledgementDto implements ShareAcknowledgement {
  @Describe('A topic name.')
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  topic: string;

  @Describe('The partition of the topic.')
  @IsInt()
  @Min(0)
  @Max(INT32_MAX)
  partition: number;

  @Describe('Ascending, non-overlapping batches of offsets and their types.')
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ShareAcknowledgementBatchDto)
  batches: ShareAcknowledgementBatchDto[];
}
