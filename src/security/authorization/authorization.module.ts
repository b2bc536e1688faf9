import { Module } from '@nestjs/common';
import { APP_GUARD, APP_INTERCEPTOR } from '@nestjs/core';
import { CohortConfig } from '../../config/cohort-config';
import { AUDIT_LOGGER_PROVIDER, AuditLogger } from '../audit-logger';
import { AclGuard } from './acl.guard';
import { ACL_STORE } from './acl-store.port';
import { AdminAuditInterceptor } from './admin-audit.interceptor';
import { AuthorizationService } from './authorization.service';
import { createAclStore } from './create-acl-store';

/**
 * Authorization for the whole app: the ACL store of the mode, the authorizer, the REST guard every
 * route passes (fail-closed), the audit of administrative changes, and the audit logger (exported for
 * authentication and the gateway). AclsController (`/v1/acls`) is registered with the other
 * controllers in AppModule, which provides their request metrics.
 */
@Module({
  providers: [
    AUDIT_LOGGER_PROVIDER,
    { provide: ACL_STORE, inject: [CohortConfig], useFactory: createAclStore },
    AuthorizationService,
    { provide: APP_GUARD, useClass: AclGuard },
    { provide: APP_INTERCEPTOR, useClass: AdminAuditInterceptor },
  ],
  exports: [AuthorizationService, AuditLogger],
})
export class AuthorizationModule {}
