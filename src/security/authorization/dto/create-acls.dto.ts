import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject } from 'class-validator';
import { AclBindingDto } from './acl-binding.dto';

/** Bindings per request: enough for any real change, bounded so one request cannot rewrite the store wholesale. */
export const MAX_ACLS_PER_REQUEST = 1_000;

export class CreateAclsDto {
  @ApiProperty({ type: AclBindingDto, isArray: true })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ACLS_PER_REQUEST)
  @IsObject({ each: true })
  acls: Record<string, unknown>[];
}
