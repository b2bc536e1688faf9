import type { Logger } from 'pino';
import { ROOT_LOGGER } from '../logging/root-logger.module';

/**
 * What happened, to whom, from where: one audit line. Kafka's authorizer logs the same facts
 * (`kafka.authorizer.logger`: principal, operation, host, resource, allowed or denied).
 */
export interface AuditEvent {
  /** `User:alice`; `User:ANONYMOUS` when nobody authenticated. */
  principal: string;
  /** The client address. */
  host: string;
  /** An ACL operation (READ, DELETE, ALTER...) or, for authentication failures, AUTHENTICATE. */
  operation: string;
  /** GROUP, TOPIC or CLUSTER (the cluster's name is `kafka-cluster`). */
  resourceType: string;
  resourceName: string;
  /** DENIED for a refused request; SUCCEEDED / FAILED for an administrative change. */
  outcome: 'DENIED' | 'SUCCEEDED' | 'FAILED';
  /** The request that asked: `OffsetCommit`, `DELETE /v1/groups/:groupId`... */
  request?: string;
  /** A short why (the refused credential kind, the Kafka error of a failed change...). */
  detail?: string;
}

/** Where audit lines go: pino's `info(mergeObject, message)`. */
export interface AuditSink {
  info(fields: object, message: string): void;
}

/**
 * One structured `audit` log line per denial and per administrative change, through the app's pino
 * logger, so that operators can route them (`msg: "audit"`, fields under `audit`) to their own file
 * as Kafka's shipped log4j config routes the authorizer logger. Used by authorization (denials, ACL
 * and admin changes) and authentication (refused credentials).
 */
export class AuditLogger {
  constructor(private readonly sink: AuditSink) {}

  record(event: AuditEvent): void {
    this.sink.info({ audit: event }, 'audit');
  }

  denied(event: Omit<AuditEvent, 'outcome'>): void {
    this.record({ ...event, outcome: 'DENIED' });
  }

  /** An administrative change that was carried out (or tried and failed with `detail`). */
  changed(event: Omit<AuditEvent, 'outcome'>, failed = false): void {
    this.record({ ...event, outcome: failed ? 'FAILED' : 'SUCCEEDED' });
  }
}

/** The Nest provider: audit lines through the app's pino logger with the context `audit`. */
export const AUDIT_LOGGER_PROVIDER = {
  provide: AuditLogger,
  inject: [ROOT_LOGGER],
  useFactory: (root: Logger): AuditLogger => new AuditLogger(root.child({ context: 'audit' })),
};
