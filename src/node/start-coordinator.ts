import { GroupCoordinator, type TopicRegistry } from '@cohort/coordinator';
import type { AssignorCatalog } from './assignor-catalog';
import type { Clock, PartitionStore } from '@cohort/replication';
import { coordinatorConfigOf } from './coordinator-config-of';
import { coordinatorLogger } from './coordinator-logger';
import type { NodeDeps } from './node-deps';

/** GROUP_CONSUMER_ASSIGNORS' default: the consumer groups' server assignors, the first the default one. */
const CONSUMER_GROUP_ASSIGNORS = ['uniform', 'range'];

/**
 * The group coordinator over this node's PartitionStore, whatever the mode: the app's settings, its
 * push sink, metrics and logger. Started, so it follows leadership (the store calls back at once for
 * the partitions already led) and topic growth.
 */
export function startCoordinator(
  store: PartitionStore,
  clock: Clock,
  topics: TopicRegistry,
  assignors: AssignorCatalog,
  { config, push, metrics }: NodeDeps,
): GroupCoordinator {
  const coordinator = new GroupCoordinator({
    store,
    clock,
    config: coordinatorConfigOf(config),
    topics,
    assignors,
    consumerAssignors: CONSUMER_GROUP_ASSIGNORS.flatMap((name) => assignors.consumerGroupAssignor(name) ?? []),
    push,
    metrics,
    logger: coordinatorLogger('GroupCoordinator'),
  });
  coordinator.start();
  return coordinator;
}
