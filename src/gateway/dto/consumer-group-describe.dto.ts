import { IsArray, IsString, MaxLength } from 'class-validator';
import type { ConsumerGroupDescribeRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

export class ConsumerGroupDescribeDto implements ConsumerGroupDescribeRequest {
  @Describe('The consumer groups to describe; an id that names no consumer group is 69 GROUP_ID_NOT_FOUND.')
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  groupIds: string[];
}
