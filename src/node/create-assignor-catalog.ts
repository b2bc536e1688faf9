import { AssignorRegistry, dryRunAssign } from '@cohort/assignors';
import { loadAssignorPlugins } from '@cohort/assignors/plugins';
import type { ServerAssignor } from '@cohort/coordinator';
import type { AssignorCatalog } from './assignor-catalog';

/**
 * Built-ins plus ASSIGNOR_PLUGINS (a plugin that cannot be loaded stops the node with a message naming
 * it). Server-side assignment goes through the registry's safe runner, so a plugin that throws or
 * returns an invalid assignment fails that rebalance with a clear error instead of corrupting the group.
 */
export async function createAssignorCatalog(plugins: string[]): Promise<AssignorCatalog> {
  const registry = new AssignorRegistry();
  await loadAssignorPlugins(registry, plugins);
  const guarded = new Map<string, ServerAssignor>(
    registry
      .list()
      .map(({ name }) => [name, { name, assign: (cluster, members) => registry.run(name, cluster, members) }]),
  );
  return {
    get: (name) => guarded.get(name),
    names: () => [...guarded.keys()],
    describe: () => registry.list(),
    consumerGroupAssignor: (name) => registry.consumerGroupAssignor(name),
    dryRun: (name, request) => dryRunAssign(registry, name, request),
  };
}
