import { Logger } from '@nestjs/common';
import {
  type Clock,
  FileCheckpointStorage,
  NetworkTransport,
  RealClock,
  RedisMetadataStore,
  ReplicationNode,
} from '@cohort/replication';
import type { CohortNode } from '../cohort-node';
import { createAssignorCatalog } from '../create-assignor-catalog';
import type { NodeDeps } from '../node-deps';
import { startCoordinator } from '../start-coordinator';
import { ClusterLogStorage } from './cluster-log-storage';
import { ClusterNode } from './cluster-node';
import { MetadataClusterStatus } from './metadata-cluster-status';
import { formatNodeEndpoint } from './node-endpoint';
import { RedisTopicRegistry } from './redis-topic-registry';
import { replicationConfigOf, replicationPortOf } from './replication-settings';

/**
 * Cluster mode (README.md's configuration table, CLUSTER_MODE=redis): metadata, controller lease and topics in Redis under
 * CLUSTER_ID; the `__consumer_offsets` partitions replicated between the nodes (RF 3, min ISR 2 by
 * default) over the network transport on REPLICATION_PORT (default PORT + 1000), each replica a segment
 * log under DATA_DIR. The node registers with an endpoint that carries both its replication address
 * (ADVERTISED_URL's host, the replication port) and ADVERTISED_URL, which FindCoordinator hands out.
 * Whatever was opened is closed again if a later step fails, so a failed start leaves nothing running.
 */
export async function createClusterNode(deps: NodeDeps): Promise<CohortNode> {
  const opened: Array<() => Promise<void>> = [];
  try {
    return await assemble(deps, new RealClock(), opened);
  } catch (error) {
    await Promise.all(opened.reverse().map((close) => close().catch(() => undefined)));
    throw error;
  }
}

async function assemble(deps: NodeDeps, clock: Clock, opened: Array<() => Promise<void>>): Promise<CohortNode> {
  const { config, address } = deps;
  const logger = new Logger('ClusterNode');
  const replication = replicationConfigOf(config);
  const report = (context: string) => (error: unknown) =>
    logger.error(`${context}: ${error instanceof Error ? error.message : String(error)}`);

  const redis = { url: config.redisUrl, sentinels: config.redisSentinels, sentinelName: config.redisSentinelName };
  const store = await RedisMetadataStore.connect({
    ...redis,
    clusterId: config.clusterId,
    clock,
    // Long enough for every live node to reconnect and put back what it knows after Redis lost its data.
    recoveryWindowMs: Math.min(replication.nodeSessionTimeoutMs, 2 * replication.nodeHeartbeatIntervalMs + 1_000),
    events: {
      onDisconnected: (error) => logger.warn(error.message),
      onReconnected: () => logger.log('metadata store reachable again'),
      onRestored: (mode, count) =>
        mode === 'initialized'
          ? logger.log(`metadata of cluster ${config.clusterId} initialized (${count} partition states put back)`)
          : logger.warn(`put back ${count} partition states that Redis had lost`),
      onBackgroundError: report('metadata store'),
    },
  });
  opened.push(() => store.close());
  const transport = await NetworkTransport.start({
    nodeId: config.nodeId,
    clock,
    listen: { host: config.host, port: replicationPortOf(config) },
    authentication: deps.peerAuthentication,
  });
  opened.push(() => transport.close());
  const topics = await RedisTopicRegistry.connect({
    ...redis,
    clusterId: config.clusterId,
    clock,
    onError: report('topic registry'),
  });
  opened.push(() => topics.close());
  const assignors = await createAssignorCatalog(config.assignorPlugins);

  const logs = new ClusterLogStorage(config.dataDir, logger, deps.logMetrics);
  const advertisedUrl = address.url();
  const endpoint = formatNodeEndpoint({
    replicationHost: new URL(advertisedUrl).hostname.replace(/^\[(.*)\]$/, '$1'),
    replicationPort: transport.address.port,
    advertisedUrl,
  });
  const node = new ReplicationNode({
    nodeId: config.nodeId,
    endpoint,
    config: replication,
    clock,
    store,
    transport,
    checkpoints: new FileCheckpointStorage(config.dataDir),
    openLog: (partition) => logs.open(partition),
    observer: {
      onError: (_nodeId, error, context) => {
        if (!logs.isToldFault(error)) report(`replication (${context})`)(error);
      },
      onLogHealed: (_nodeId, partition) => logs.onHealed(partition),
    },
  });
  const cluster = new MetadataClusterStatus({
    clusterId: config.clusterId,
    nodeId: config.nodeId,
    numPartitions: config.offsetsTopicNumPartitions,
    store,
    replicas: node.replicas,
    clock,
    refreshIntervalMs: replication.nodeHeartbeatIntervalMs,
    onError: (error) =>
      logger.warn(`cluster view keeps its last answers: ${error instanceof Error ? error.message : String(error)}`),
  });
  opened.push(async () => cluster.close());
  const led = new Set<number>();
  node.replicas.subscribe({ onBecomeLeader: (p) => void led.add(p), onResign: (p) => void led.delete(p) });
  const coordinator = startCoordinator(node.replicas, clock, topics, assignors, deps);
  opened.push(async () => coordinator.close());
  await cluster.start();
  await node.start();
  logger.log(`node ${config.nodeId} of cluster ${config.clusterId} registered (epoch ${node.epoch}) at ${endpoint}`);
  return new ClusterNode({
    coordinator,
    topics,
    cluster,
    assignors,
    replication: node,
    transport,
    led,
    controlledShutdownTimeoutMs: replication.nodeSessionTimeoutMs * 2,
  });
}
