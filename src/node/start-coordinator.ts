import { GroupCoordinator, type ServerAssignorLookup, type TopicRegistry } from '@cohort/coordinator';
import type { Clock, PartitionStore } from '@cohort/replication';
import { coordinatorConfigOf } from './coordinator-config-of';
import { coordinatorLogger } from './coordinator-logger';
import type { NodeDeps } from './node-deps';

/**
 * The group coordinator over this node's PartitionStore, whatever the mode: the app's settings, its
 * push sink, metrics and logger. Started, so it follows leadership (the store calls back at once for
 * the partitions already led) and topic growth.
 */
export function startCoordinator(
  store: PartitionStore,
  clock: Clock,
  topics: TopicRegistry,
  assignors: ServerAssignorLookup,
  { config, push, metrics }: NodeDeps,
): GroupCoordinator {
  const coordinator = new GroupCoordinator({
    store,
    clock,
    config: coordinatorConfigOf(config),
    topics,
    assignors,
    push,
    metrics,
    logger: coordinatorLogger('GroupCoordinator'),
  });
  coordinator.start();
  return coordinator;
}
