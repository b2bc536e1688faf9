import type { CoordinatorMetrics, PushSink } from '@cohort/coordinator';
import type { CohortConfig } from '../config/cohort-config';
import type { NodeAddress } from './node-address';

/** What building a node takes from the app, whatever the mode. */
export interface NodeDeps {
  config: CohortConfig;
  push: PushSink;
  metrics: CoordinatorMetrics;
  address: NodeAddress;
}
