import { ApiProperty } from '@nestjs/swagger';
import type { CreateAclsResponse } from '@cohort/protocol';
import { AclBindingDto } from '../../security/authorization/dto/acl-binding.dto';

/** `POST /v1/acls`. */
export class AclsCreatedResponse implements Record<keyof CreateAclsResponse, AclBindingDto[]> {
  @ApiProperty({ type: () => [AclBindingDto], description: 'The bindings stored.' })
  created: AclBindingDto[];
}
