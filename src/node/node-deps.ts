import type { CoordinatorMetrics, PushSink } from '@cohort/coordinator';
import type { CohortConfig } from '../config/cohort-config';
import type { NodeAddress } from './node-address';

export interface LogFlushMetrics {
  onLogFlush(durationMs: number, bytes: number): void;
}

/** What building a node takes from the app, whatever the mode. */
export interface NodeDeps {
  config: CohortConfig;
  push: PushSink;
  metrics: CoordinatorMetrics;
  /** The embedded node's log flushes (LOG_FLUSH_POLICY=always), for /metrics. */
  logMetrics?: LogFlushMetrics;
  address: NodeAddress;
}
