import { IsIn, IsOptional, IsString, MaxLength } from 'class-validator';
import type { FindCoordinatorRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';

export class FindCoordinatorDto implements FindCoordinatorRequest {
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  key: string;

  /** Only groups (0) are coordinated here; transactions (1) and share groups (2) are not. */
  @IsOptional()
  @IsIn([0])
  keyType?: 0;
}
