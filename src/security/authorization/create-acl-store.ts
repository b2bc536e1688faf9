import { Logger } from '@nestjs/common';
import type { CohortConfig } from '../../config/cohort-config';
import type { AclStore } from './acl-store.port';
import { FileAclStore } from './file-acl-store';
import { RedisAclStore } from './redis-acl-store';

/** The bindings' home for the configured mode: a file under DATA_DIR, or the cluster's Redis. */
export async function createAclStore(config: CohortConfig): Promise<AclStore> {
  if (config.clusterMode === 'embedded') return new FileAclStore(config.dataDir);
  const logger = new Logger('AclStore');
  return RedisAclStore.connect({
    url: config.redisUrl,
    sentinels: config.redisSentinels,
    sentinelName: config.redisSentinelName,
    clusterId: config.clusterId,
    onError: (error) => logger.warn(`ACL store: ${error instanceof Error ? error.message : String(error)}`),
  });
}
