import { IsArray, IsOptional, IsString, MaxLength } from 'class-validator';
import type { ListGroupsRequest } from '@cohort/protocol';

export class ListGroupsDto implements ListGroupsRequest {
  /** Matched case-insensitively against the state names by the coordinator (KIP-518). */
  @IsOptional()
  @IsArray()
  @IsString({ each: true })
  @MaxLength(64, { each: true })
  statesFilter?: string[];
}
