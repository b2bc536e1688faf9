import { IsArray, IsString, MaxLength } from 'class-validator';
import type { DeleteGroupsRequest } from '@cohort/protocol';
import { MAX_ID_LENGTH } from './field-limits';

export class DeleteGroupsDto implements DeleteGroupsRequest {
  @IsArray() @IsString({ each: true }) @MaxLength(MAX_ID_LENGTH, { each: true })
  groupsNames: string[];
}
