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

  /** Matched case-insensitively against `classic`, `consumer` and `share` by the coordinator (KIP-848). */
  @Describe('Only groups of these types: classic, consumer or share.')
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  typesFilter?: string[];
}
