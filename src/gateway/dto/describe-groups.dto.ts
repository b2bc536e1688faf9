import { IsArray, IsString, MaxLength } from 'class-validator';
import type { DescribeGroupsRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';

export class DescribeGroupsDto implements DescribeGroupsRequest {
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  groups: string[];
}
