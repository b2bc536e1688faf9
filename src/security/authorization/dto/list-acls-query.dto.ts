import { ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString } from 'class-validator';
import { ACL_OPERATIONS, ACL_PERMISSIONS, PATTERN_TYPES, RESOURCE_TYPES } from '@cohort/protocol';

/** `GET /v1/acls` filters: each one given must equal the binding's. */
export class ListAclsQueryDto {
  @ApiPropertyOptional({ example: 'User:billing' })
  @IsOptional()
  @IsString()
  principal?: string;

  @ApiPropertyOptional({ example: '*' })
  @IsOptional()
  @IsString()
  host?: string;

  @ApiPropertyOptional({ enum: RESOURCE_TYPES })
  @IsOptional()
  @IsIn(RESOURCE_TYPES)
  resourceType?: string;

  @ApiPropertyOptional({ example: 'billing-' })
  @IsOptional()
  @IsString()
  resourceName?: string;

  @ApiPropertyOptional({ enum: PATTERN_TYPES })
  @IsOptional()
  @IsIn(PATTERN_TYPES)
  patternType?: string;

  @ApiPropertyOptional({ enum: ACL_OPERATIONS })
  @IsOptional()
  @IsIn(ACL_OPERATIONS)
  operation?: string;

  @ApiPropertyOptional({ enum: ACL_PERMISSIONS })
  @IsOptional()
  @IsIn(ACL_PERMISSIONS)
  permission?: string;
}
