import type { GroupCoordinatorApi, TopicRegistry } from '@cohort/coordinator';
import type { AssignorCatalog } from './assignor-catalog';
import type { ClusterStatus } from './cluster-status';

/**
 * One running Cohort node as the transports see it: the coordinator, the topic registry, the cluster
 * view and the assignors, whatever the mode (embedded or cluster) that built them. Controllers and the
 * gateway inject it with the COHORT_NODE token.
 */
export interface CohortNode {
  readonly mode: 'embedded' | 'redis';
  readonly coordinator: GroupCoordinatorApi;
  readonly topics: TopicRegistry;
  readonly cluster: ClusterStatus;
  readonly assignors: AssignorCatalog;
  /** Loaded and serving every partition this node leads (readiness, docs/rest.md). */
  isReady(): boolean;
  /** Why the node is not ready (readiness shows it); undefined when ready or when the mode has one reason only. */
  notReadyReason?(): string | undefined;
  /** False when waiting cannot make the node ready (a damaged log); undefined or true while it can. */
  mayBecomeReady?(): boolean;
  /** Fails pending writes, stops the coordinator and closes the log cleanly; idempotent. */
  close(): Promise<void>;
}

export const COHORT_NODE = Symbol('CohortNode');
