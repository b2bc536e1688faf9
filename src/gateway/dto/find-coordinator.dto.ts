import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FindCoordinatorRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

export class FindCoordinatorDto implements FindCoordinatorRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  key: string;

  /** Only groups (0) are coordinated here; transactions (1) and share groups (2) are not. */
  @Describe('0 = group (the only type).')
  @IsOptional()
  @IsIn([0])
  keyType?: 0;
}
