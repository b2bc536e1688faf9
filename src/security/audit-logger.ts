import type { OnModuleDestroy } from '@nestjs/common';
import type { Logger } from 'pino';
import { CohortConfig } from '../config/cohort-config';
import { ROOT_LOGGER } from '../logging/root-logger.module';
import { AuditRateLimit, type SuppressedLines } from './audit-rate-limit';
import { ANONYMOUS_PRINCIPAL } from './principal';

/** A denial of many resources (a DescribeGroups of many groups) names at most this many of them. */
export const MAX_NAMES_PER_LINE = 100;

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
  /** The refused resource; with several, the first of them. */
  resourceName: string;
  /** With several resources refused by one request: the first MAX_NAMES_PER_LINE of them... */
  resourceNames?: string[];
  /** ...and how many there were. */
  refused?: number;
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

/** How many denial lines one principal may write (AuditRateLimit); 0 lines = no limit. */
export interface AuditLimits {
  lines: number;
  windowMs: number;
}

/**
 * One structured `audit` log line per denial and per administrative change, through the app's pino
 * logger, so that operators can route them (`msg: "audit"`, fields under `audit`) to their own file
 * as Kafka's shipped log4j config routes the authorizer logger. Used by authorization (denials, ACL
 * and admin changes) and authentication (refused credentials).
 *
 * A request refused on many resources is one line naming them (deniedMany). Denial lines are limited
 * per principal (AUDIT_LOG_LIMIT_LINES per AUDIT_LOG_LIMIT_WINDOW_MS): past the limit they are
 * counted, and one line with `outcome: "SUPPRESSED"` and the count is written when the window ends.
 * Administrative changes are never suppressed: only a principal allowed to make them can cause them.
 */
export class AuditLogger implements OnModuleDestroy {
  private readonly limit: AuditRateLimit | null;
  private readonly suppressionListeners: ((count: number) => void)[] = [];

  constructor(
    private readonly sink: AuditSink,
    limits?: AuditLimits,
  ) {
    this.limit =
      limits && limits.lines > 0
        ? new AuditRateLimit(limits.lines, limits.windowMs, (report) => {
            for (const listener of this.suppressionListeners) listener(report.suppressed);
            this.suppressed(report);
          })
        : null;
  }

  record(event: AuditEvent): void {
    if (
      event.outcome === 'DENIED' &&
      this.limit &&
      !this.limit.admit(event.principal, event.host, event.principal === ANONYMOUS_PRINCIPAL)
    )
      return;
    this.sink.info({ audit: event }, 'audit');
  }

  denied(event: Omit<AuditEvent, 'outcome'>): void {
    this.record({ ...event, outcome: 'DENIED' });
  }

  /** One request refused on several resources of one type: one line naming them (at most MAX_NAMES_PER_LINE). */
  deniedMany(event: Omit<AuditEvent, 'outcome' | 'resourceName' | 'resourceNames' | 'refused'>, names: string[]): void {
    if (names.length === 0) return;
    if (names.length === 1) return this.denied({ ...event, resourceName: names[0] });
    this.denied({
      ...event,
      resourceName: names[0],
      resourceNames: names.slice(0, MAX_NAMES_PER_LINE),
      refused: names.length,
    });
  }

  /** An administrative change that was carried out (or tried and failed with `detail`). */
  changed(event: Omit<AuditEvent, 'outcome'>, failed = false): void {
    this.record({ ...event, outcome: failed ? 'FAILED' : 'SUCCEEDED' });
  }

  /** Told how many lines each window suppressed (the metric, AuditMetrics). */
  onSuppressed(listener: (count: number) => void): void {
    this.suppressionListeners.push(listener);
  }

  onModuleDestroy(): void {
    this.limit?.flush();
  }

  private suppressed(report: SuppressedLines): void {
    this.sink.info(
      {
        audit: {
          ...report,
          outcome: 'SUPPRESSED',
          detail: `${report.suppressed} denial lines of ${report.principal} not written: over AUDIT_LOG_LIMIT_LINES in ${report.windowMs} ms`,
        },
      },
      'audit',
    );
  }
}

/** The Nest provider: audit lines through the app's pino logger with the context `audit`. */
export const AUDIT_LOGGER_PROVIDER = {
  provide: AuditLogger,
  inject: [ROOT_LOGGER, CohortConfig],
  useFactory: (root: Logger, config: CohortConfig): AuditLogger =>
    new AuditLogger(root.child({ context: 'audit' }), {
      lines: config.security.auditLogLimitLines,
      windowMs: config.security.auditLogLimitWindowMs,
    }),
};
