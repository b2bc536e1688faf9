import { type DynamicModule, type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TerminusModule } from '@nestjs/terminus';
import { CohortConfig } from './config/cohort-config';
import { CohortConfigModule } from './config/cohort-config.module';
import { GatewayAuthorization } from './gateway/authorization/gateway-authorization';
import { CoordinatorGateway } from './gateway/coordinator.gateway';
import { SocketInputLimits } from './gateway/input/socket-input-limits';
import { SocketOutputLimits } from './gateway/output/socket-output-limits';
import { SocketPushSink } from './gateway/socket-push-sink';
import { AssignorsController } from './http/assignors.controller';
import { AsyncApiController } from './http/asyncapi.controller';
import { ClusterController } from './http/cluster.controller';
import { CoordinatorForwardingMiddleware } from './http/coordinator-forwarding.middleware';
import { GroupsController } from './http/groups.controller';
import { DeadLettersController } from './http/dead-letters.controller';
import { HealthController } from './http/health.controller';
import { RootController } from './http/root.controller';
import { KafkaHttpExceptionFilter } from './http/kafka-http-exception.filter';
import { MetricsController } from './http/metrics.controller';
import { OffsetsController } from './http/offsets.controller';
import { RequestDepthMiddleware } from './http/request-depth.middleware';
import { TopicsController } from './http/topics.controller';
import { CohortMetrics } from './metrics/cohort-metrics';
import { COHORT_NODE } from './node/cohort-node';
import { createNode } from './node/create-node';
import { NodeAddress } from './node/node-address';
import { NodeLifecycle } from './node/node-lifecycle';
import { DashboardModule } from './ui/dashboard.module';
import { RootLoggerModule } from './logging/root-logger.module';
import { RequestLogMiddleware } from './logging/request-log.middleware';
import { AclsController } from './http/acls.controller';
import { AuthorizationModule } from './security/authorization/authorization.module';
import { AuthorizationService } from './security/authorization/authorization.service';
import { topicAccessOf } from './security/authorization/topic-access-of';
import { peerAuthenticationOf } from './security/cluster/peer-authentication-of';
import { GroupRemovals } from './security/limits/group-removals';
import { SECURITY_EDGE_PROVIDERS } from './security/security-edge.providers';
import { securityProblems } from './security/security-problems';

/**
 * The whole app: config, logging, the node (built by CLUSTER_MODE), and the two transports over it.
 * `env` is a parameter (process.env in main.ts) so tests and benchmarks can run nodes side by side.
 */
@Module({})
export class AppModule implements NestModule {
  /** Bodies too deep to walk are refused first; in cluster mode, group requests reach the group's coordinator from any node. */
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(RequestLogMiddleware, RequestDepthMiddleware).forRoutes('{*path}');
    consumer
      .apply(CoordinatorForwardingMiddleware)
      .forRoutes(GroupsController, OffsetsController, DeadLettersController);
  }

  static async forRoot(env: Record<string, string | undefined>): Promise<DynamicModule> {
    return {
      module: AppModule,
      imports: [
        await CohortConfigModule.forRoot(env, securityProblems),
        RootLoggerModule,
        TerminusModule.forRoot({ logger: false }),
        DashboardModule,
        AuthorizationModule,
      ],
      controllers: [
        GroupsController,
        DeadLettersController,
        OffsetsController,
        TopicsController,
        ClusterController,
        AssignorsController,
        HealthController,
        MetricsController,
        AsyncApiController,
        AclsController,
        RootController,
      ],
      providers: [
        CohortMetrics,
        SocketPushSink,
        SocketOutputLimits,
        SocketInputLimits,
        NodeAddress,
        {
          provide: COHORT_NODE,
          inject: [CohortConfig, SocketPushSink, CohortMetrics, NodeAddress, GroupRemovals, AuthorizationService],
          // Group removals also reach the count of groups per principal (MAX_GROUPS_PER_PRINCIPAL).
          useFactory: (
            config: CohortConfig,
            push: SocketPushSink,
            metrics: CohortMetrics,
            address: NodeAddress,
            removals: GroupRemovals,
            authorization: AuthorizationService,
          ) =>
            createNode({
              config,
              push,
              metrics: removals.relaying(metrics),
              logMetrics: metrics,
              address,
              peerAuthentication: peerAuthenticationOf(config),
              topicAccess: topicAccessOf(authorization),
            }),
        },
        NodeLifecycle,
        CoordinatorGateway,
        GatewayAuthorization,
        { provide: APP_FILTER, useClass: KafkaHttpExceptionFilter },
        ...SECURITY_EDGE_PROVIDERS,
      ],
    };
  }
}
