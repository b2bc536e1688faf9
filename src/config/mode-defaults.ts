import type { EnvironmentVariables } from './environment-variables';

/** README.md's configuration table: replication settings whose defaults depend on CLUSTER_MODE (1 node embedded, RF 3 / min ISR 2 in a cluster). */
export function replicationSettings(env: EnvironmentVariables): {
  replicationFactor: number;
  minInsyncReplicas: number;
  logFlushPolicy: 'always' | 'replicated';
} {
  const embedded = env.CLUSTER_MODE === 'embedded';
  return {
    replicationFactor: env.OFFSETS_TOPIC_REPLICATION_FACTOR ?? (embedded ? 1 : 3),
    minInsyncReplicas: env.MIN_INSYNC_REPLICAS ?? (embedded ? 1 : 2),
    logFlushPolicy: env.LOG_FLUSH_POLICY ?? (embedded ? 'always' : 'replicated'),
  };
}
