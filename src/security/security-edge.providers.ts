import type { Provider } from '@nestjs/common';
import { APP_INTERCEPTOR } from '@nestjs/core';
import { CohortConfig } from '../config/cohort-config';
import { AuditMetrics } from './audit-metrics';
import { Authenticator } from './authentication/authenticator';
import { NodeHttpClient } from './cluster/node-http-client';
import { NodeRequestSigner } from './cluster/node-request-signer';
import { CREATION_LEDGER } from './limits/creation-ledger.port';
import { CreationLimits } from './limits/creation-limits';
import { createCreationLedger } from './limits/create-creation-ledger';
import { GroupCreationInterceptor } from './limits/group-creation.interceptor';
import { GroupRemovals } from './limits/group-removals';
import { HostPolicy } from './origin/host-policy';
import { OriginPolicy } from './origin/origin-policy';
import { RestSecurityGate } from './rest/rest-security.gate';
import { RestRateLimiter } from './rest/rest-rate-limiter';
import { EngineHandshakes } from './socket/engine-handshakes';
import { SocketSecurity } from './socket/socket-security';

/**
 * What the edges need for authentication, protected mode, origins, node-to-node signatures and rate
 * limits, as AppModule's providers (in AppModule itself, beside NodeAddress, which the
 * origin policy asks for the node's own origin). Authorization's providers are its own, the one
 * AuditLogger among them.
 */
export const SECURITY_EDGE_PROVIDERS: Provider[] = [
  AuditMetrics,
  Authenticator,
  OriginPolicy,
  HostPolicy,
  NodeRequestSigner,
  NodeHttpClient,
  RestRateLimiter,
  RestSecurityGate,
  SocketSecurity,
  EngineHandshakes,
  GroupRemovals,
  { provide: CREATION_LEDGER, inject: [CohortConfig], useFactory: createCreationLedger },
  CreationLimits,
  { provide: APP_INTERCEPTOR, useClass: GroupCreationInterceptor },
];
