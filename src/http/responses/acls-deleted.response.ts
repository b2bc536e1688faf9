import { ApiProperty } from '@nestjs/swagger';
import type { DeleteAclsResponse } from '@cohort/protocol';
import { AclBindingDto } from '../../security/authorization/dto/acl-binding.dto';

/** `DELETE /v1/acls`. */
export class AclsDeletedResponse implements Record<keyof DeleteAclsResponse, AclBindingDto[]> {
  @ApiProperty({ type: () => [AclBindingDto], description: 'Every binding that matched one of the filters.' })
  deleted: AclBindingDto[];
}
