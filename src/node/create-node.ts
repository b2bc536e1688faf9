import type { CohortNode } from './cohort-node';
import { createClusterNode } from './cluster/create-cluster-node';
import { createEmbeddedNode } from './embedded/create-embedded-node';
import type { NodeDeps } from './node-deps';

/**
 * The one place where CLUSTER_MODE chooses how this node is built: the PartitionStore of the mode
 * (the local segment files, or the replicated log), its metadata (this process, or Redis), and the
 * coordinator over them.
 */
export async function createNode(deps: NodeDeps): Promise<CohortNode> {
  switch (deps.config.clusterMode) {
    case 'embedded':
      return createEmbeddedNode(deps);
    case 'redis':
      return createClusterNode(deps);
  }
}
