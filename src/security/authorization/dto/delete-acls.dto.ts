import { ApiProperty } from '@nestjs/swagger';
import { ArrayMaxSize, ArrayMinSize, IsArray, IsObject } from 'class-validator';
import { AclBindingDto } from './acl-binding.dto';
import { MAX_ACLS_PER_REQUEST } from './create-acls.dto';

export class DeleteAclsDto {
  @ApiProperty({
    type: AclBindingDto,
    isArray: true,
    description:
      'Partial bindings: every field given must match, a field left out matches anything ({} matches every binding).',
  })
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(MAX_ACLS_PER_REQUEST)
  @IsObject({ each: true })
  filters: Record<string, unknown>[];
}
