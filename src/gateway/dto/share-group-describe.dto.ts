import { IsArray, IsString, MaxLength } from 'class-validator';
import type { ShareGroupDescribeRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

export class ShareGroupDescribeDto implements ShareGroupDescribeRequest {
  @Describe('The share groups to describe; an id that names no share group is 69 GROUP_ID_NOT_FOUND.')
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  groupIds: string[];
}
