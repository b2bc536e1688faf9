import { ApiProperty } from '@nestjs/swagger';
import { ACL_OPERATIONS, ACL_PERMISSIONS, PATTERN_TYPES, RESOURCE_TYPES } from '@cohort/protocol';

/**
 * A binding as OpenAPI shows it. The fields are checked by @cohort/security's validateBinding (one
 * set of rules for REST, the stored file and Redis), which names every bad field.
 */
export class AclBindingDto {
  @ApiProperty({ example: 'User:billing', description: "'User:<name>', or 'User:*' for every principal" })
  principal: string;

  @ApiProperty({ example: '*', description: "'*' or one client IP address" })
  host: string;

  @ApiProperty({ enum: RESOURCE_TYPES, example: 'GROUP' })
  resourceType: string;

  @ApiProperty({
    example: 'billing-',
    description: "a name, '*' (LITERAL) for every resource, 'kafka-cluster' for CLUSTER",
  })
  resourceName: string;

  @ApiProperty({ enum: PATTERN_TYPES, example: 'PREFIXED' })
  patternType: string;

  @ApiProperty({ enum: ACL_OPERATIONS, example: 'READ' })
  operation: string;

  @ApiProperty({ enum: ACL_PERMISSIONS, example: 'ALLOW' })
  permission: string;
}
