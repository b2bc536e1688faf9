import { Type } from 'class-transformer';
import { IsArray, IsObject, IsString, MaxLength, MinLength, ValidateNested } from 'class-validator';
import type { ShareAcknowledgeRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';
import { ShareAcknowledgementDto } from './share-acknowledgement.dto';

/** A share group member acknowledges offsets it holds; each partition is all or nothing. */
export class ShareAcknowledgeDto implements ShareAcknowledgeRequest {
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

  @Describe('Per partition, ascending non-overlapping batches of offsets and their types.')
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ShareAcknowledgementDto)
  acknowledgements: ShareAcknowledgementDto[];
}
