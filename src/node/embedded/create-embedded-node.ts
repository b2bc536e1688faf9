import { InMemoryTopicRegistry } from '@cohort/coordinator';
import { RealClock } from '@cohort/replication';
import type { CohortNode } from '../cohort-node';
import type { NodeDeps } from '../node-deps';
import { startCoordinator } from '../start-coordinator';
import { createAssignorCatalog } from '../create-assignor-catalog';
import { EmbeddedClusterStatus } from './embedded-cluster-status';
import { EmbeddedNode } from './embedded-node';
import { openLocalStore } from './open-local-store';
import { TopicRegistryFile } from './topic-registry-file';

/**
 * Embedded mode (README.md's configuration table): one process, RF 1, the log and the topic registry as files under DATA_DIR.
 * The coordinator starts at once; it answers COORDINATOR_LOAD_IN_PROGRESS until it has replayed each
 * partition, and readiness turns up when all are loaded.
 */
export async function createEmbeddedNode(deps: NodeDeps): Promise<CohortNode> {
  const { config, address } = deps;
  const clock = new RealClock();
  const topicFile = new TopicRegistryFile(config.dataDir);
  const topics = new InMemoryTopicRegistry({
    ...topicFile.load(),
    persist: (all, timeIndexes) => topicFile.save(all, timeIndexes),
    clock,
  });
  const assignors = await createAssignorCatalog(config.assignorPlugins);
  const store = await openLocalStore(config, clock, deps.logMetrics);
  deps.logMetrics?.setDamagedPartitions?.(store.damagedPartitions.size);
  const cluster = new EmbeddedClusterStatus(
    config.clusterId,
    config.nodeId,
    config.offsetsTopicNumPartitions,
    store,
    address,
    clock,
  );
  const coordinator = startCoordinator(store, clock, topics, assignors, deps);
  return new EmbeddedNode({
    coordinator,
    topics,
    cluster,
    assignors,
    numPartitions: config.offsetsTopicNumPartitions,
    storageFault: () => store.storageFault,
    damagedPartitions: () => store.damagedPartitions,
    closeStore: () => store.close(),
  });
}
