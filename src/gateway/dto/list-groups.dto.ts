import { IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import type { ListGroupsRequest } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

export class ListGroupsDto implements ListGroupsRequest {
  /** Matched case-insensitively against the state names by the coordinator (KIP-518). */
  @Describe('Only groups in these states.')
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  statesFilter?: string[];
}
