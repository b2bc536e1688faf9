import type { CohortConfig } from '../../config/cohort-config';
import type { CreationLedger } from './creation-ledger.port';
import { FileCreationLedger } from './file-creation-ledger';
import { RedisCreationLedger } from './redis-creation-ledger';

/** The ledger of the configured mode: a file under DATA_DIR, or the cluster's Redis. */
export async function createCreationLedger(config: CohortConfig): Promise<CreationLedger> {
  if (config.security.maxGroupsPerPrincipal === 0 && config.security.maxTopicsPerPrincipal === 0) return NO_LEDGER;
  if (config.clusterMode === 'embedded') return new FileCreationLedger(config.dataDir);
  return RedisCreationLedger.connect({
    url: config.redisUrl,
    sentinels: config.redisSentinels,
    sentinelName: config.redisSentinelName,
    clusterId: config.clusterId,
  });
}

/** Both limits off: nothing is counted, and no file or Redis connection is opened. */
const NO_LEDGER: CreationLedger = {
  claim: () => Promise.resolve('claimed'),
  release: () => Promise.resolve(),
  held: () => Promise.resolve([]),
  close: () => Promise.resolve(),
};
