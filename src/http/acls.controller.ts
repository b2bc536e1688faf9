import {
  Body,
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Post,
  Query,
  Req,
  UseInterceptors,
  UsePipes,
} from '@nestjs/common';
import { ApiCreatedResponse, ApiOkResponse, ApiTags } from '@nestjs/swagger';
import { ApiErrors, ApiProtected } from './responses/api-errors.decorator';
import { AclsCreatedResponse } from './responses/acls-created.response';
import { AclsDeletedResponse } from './responses/acls-deleted.response';
import type { AclBinding, CreateAclsResponse, DeleteAclsResponse } from '@cohort/protocol';
import { validateBinding, validateFilter } from '@cohort/security';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { RequestMetricsInterceptor } from '../metrics/request-metrics.interceptor';
import type { PrincipalRequest } from '../security/principal';
import { AuthorizationService } from '../security/authorization/authorization.service';
import { callerOfRequest } from '../security/authorization/caller-of';
import { AclBindingDto } from '../security/authorization/dto/acl-binding.dto';
import { CreateAclsDto } from '../security/authorization/dto/create-acls.dto';
import { DeleteAclsDto } from '../security/authorization/dto/delete-acls.dto';
import { ListAclsQueryDto } from '../security/authorization/dto/list-acls-query.dto';
import { RequireAcl } from '../security/authorization/route-acl.decorator';

/**
 * Kafka's DescribeAcls / CreateAcls / DeleteAcls over REST (docs/security.md): DESCRIBE CLUSTER to
 * read, ALTER CLUSTER to change. Every binding of a request is checked before any is stored, so a
 * request with one bad binding changes nothing. Changes are enforced on this node before the answer
 * and on every other node within a second.
 */
@ApiTags('acls')
@ApiProtected()
@Controller('v1/acls')
@UsePipes(KafkaValidationPipe)
@UseInterceptors(RequestMetricsInterceptor)
export class AclsController {
  constructor(private readonly authorization: AuthorizationService) {}

  @Get()
  @RequireAcl({ request: 'DescribeAcls' })
  @ApiOkResponse({ type: AclBindingDto, isArray: true, description: 'The bindings that match every filter given.' })
  @ApiErrors({ 400: true })
  list(@Query() query: ListAclsQueryDto): AclBinding[] {
    return this.authorization.list(validateFilter({ ...query }, 'query'));
  }

  @Post()
  @HttpCode(HttpStatus.CREATED)
  @RequireAcl({ request: 'AlterAcls' })
  @ApiCreatedResponse({ type: AclsCreatedResponse })
  @ApiErrors({ 400: 'INVALID_REQUEST (42) naming every bad field; nothing is stored then.', 503: true })
  async create(@Body() body: CreateAclsDto, @Req() request: PrincipalRequest): Promise<CreateAclsResponse> {
    const bindings = body.acls.map((acl, index) => validateBinding(acl, `acls.${index}`));
    return { created: await this.authorization.create(callerOfRequest(request), bindings) };
  }

  @Delete()
  @RequireAcl({ request: 'AlterAcls' })
  @ApiOkResponse({ type: AclsDeletedResponse })
  @ApiErrors({ 400: true, 503: true })
  async delete(@Body() body: DeleteAclsDto, @Req() request: PrincipalRequest): Promise<DeleteAclsResponse> {
    const filters = body.filters.map((filter, index) => validateFilter(filter, `filters.${index}`));
    return { deleted: await this.authorization.delete(callerOfRequest(request), filters) };
  }
}
