import { GroupCoordinator, type TopicRegistry } from '@cohort/coordinator';
import { ConfigurationError } from '../config/validate-environment';
import type { AssignorCatalog } from './assignor-catalog';
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
  assignors: AssignorCatalog,
  { config, push, metrics, topicAccess }: NodeDeps,
): GroupCoordinator {
  const coordinator = new GroupCoordinator({
    store,
    clock,
    config: coordinatorConfigOf(config),
    topics,
    assignors,
    consumerAssignors: consumerAssignorsOf(config.groupConsumerAssignors, assignors),
    push,
    metrics,
    logger: coordinatorLogger('GroupCoordinator'),
    topicAccess,
  });
  coordinator.start();
  return coordinator;
}

/**
 * GROUP_CONSUMER_ASSIGNORS looked up once the plugins are loaded: a name that is neither built in nor a
 * plugin's stops the start, as any bad variable does (a silently dropped default would change assignments).
 */
function consumerAssignorsOf(names: readonly string[], assignors: AssignorCatalog) {
  return names.map((name) => {
    const assignor = assignors.consumerGroupAssignor(name);
    if (!assignor) {
      throw new ConfigurationError([
        `GROUP_CONSUMER_ASSIGNORS="${names.join(',')}": no consumer group assignor is named "${name}" (uniform, range or an ASSIGNOR_PLUGINS assignor)`,
      ]);
    }
    return assignor;
  });
}
