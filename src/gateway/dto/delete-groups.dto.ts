import { IsArray, IsString, MaxLength } from 'class-validator';
import type { DeleteGroupsRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from '@cohort/protocol';

export class DeleteGroupsDto implements DeleteGroupsRequest {
  @IsArray()
  @IsString({ each: true })
  @MaxLength(MAX_ID_LENGTH, { each: true })
  groupsNames: string[];
}
