import { StaticAssignorLookup } from '@cohort/coordinator';
import { KafkaError } from '@cohort/protocol';
import type { AssignorCatalog } from './assignor-catalog';

/** The assignors of this node: built-ins plus ASSIGNOR_PLUGINS (libs/assignors). */
export async function createAssignorCatalog(plugins: string[]): Promise<AssignorCatalog> {
  if (plugins.length > 0) throw new Error('ASSIGNOR_PLUGINS: plugin loading is not available in this build yet');
  // Interim until libs/assignors exports its registry: no assignor is registered.
  const lookup = new StaticAssignorLookup();
  return {
    get: (name) => lookup.get(name),
    names: () => lookup.names(),
    describe: () => [],
    dryRun: (name) => {
      throw KafkaError.of('UNSUPPORTED_ASSIGNOR', `no assignor named '${name}'`);
    },
  };
}
