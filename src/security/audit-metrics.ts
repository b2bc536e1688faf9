import { Injectable } from '@nestjs/common';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { AuditLogger } from './audit-logger';

/**
 * Counts the audit lines AuditLogger suppressed in `cohort_audit_lines_suppressed_total`. A provider
 * of AppModule, where the metrics live; the logger itself is AuthorizationModule's.
 */
@Injectable()
export class AuditMetrics {
  constructor(audit: AuditLogger, metrics: CohortMetrics) {
    audit.onSuppressed((count) => metrics.edge.auditLinesSuppressed(count));
  }
}
