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
import type { ShareAcquireRequest } from '@cohort/protocol';
import { INT32_MAX, MAX_ID_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';
import { ShareAcknowledgementDto } from './share-acknowledgement.dto';

/** The longest a ShareAcquire may be held (Kafka bounds its fetch wait by the request timeout). */
const MAX_SHARE_WAIT_MS = 300_000;

/**
 * A share group member leases offsets of its partitions (KIP-932's ShareFetch over offsets), applying
 * its piggy-backed acknowledgements first; with nothing to lease it is held up to `maxWaitMs`.
 */
export class ShareAcquireDto implements ShareAcquireRequest {
  @Describe('The share group id.')
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @Describe('The member id the member heartbeats with.')
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_ID_LENGTH)
  memberId: string;

  @Describe('The most offsets this request leases, over all partitions.')
  @IsInt()
  @Min(1)
  @Max(INT32_MAX)
  maxRecords: number;

  @Describe('The longest range in one lease (default maxRecords).')
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(INT32_MAX)
  batchSize?: number;

  @Describe('How long to hold the request while nothing can be leased (default 0: answer at once).')
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(MAX_SHARE_WAIT_MS)
  maxWaitMs?: number;

  @Describe('Acknowledgements applied before anything is leased; each partition answers acknowledgeErrorCode.')
  @IsOptional()
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ShareAcknowledgementDto)
  acknowledgements?: ShareAcknowledgementDto[];
}
