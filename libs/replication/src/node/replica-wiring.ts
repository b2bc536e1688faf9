import type { Partition } from '../partition/partition';
import type { PartitionContext } from '../partition/partition-context';
import { KAFKA_REPLICATION_RULES } from '../partition/replication-rules';
import type { AlterPartitionSender } from './alter-partition-sender';
import type { FetchPurgatory } from './fetch-purgatory';
import type { LeadershipNotifier } from './leadership-notifier';
import { partitionEvents } from './partition-events';
import type { RegistrationCache } from './registration-cache';
import type { FetcherHost } from './replica-fetcher';
import type { ReplicaManagerDeps } from './replica-manager-deps';

/** What a ReplicaManager lends the partitions and fetchers it makes. */
export interface ReplicaWiring {
  deps: ReplicaManagerDeps;
  nodeEpoch: () => number;
  cluster: RegistrationCache;
  /** Peers whose every replication connection closed, until they fetch again. */
  disconnected: ReadonlySet<number>;
  partitions: ReadonlyMap<number, Partition>;
  purgatory: FetchPurgatory;
  notifier: LeadershipNotifier;
  sender: AlterPartitionSender;
  afterChange: (p: Partition) => void;
  reportError: (error: unknown, context: string) => void;
  trace: (line: string) => void;
}

/** The context every Partition of the node shares: its identity, clock, rules and where its events go. */
export function partitionContextFor(w: ReplicaWiring): PartitionContext {
  const { deps } = w;
  return {
    nodeId: deps.nodeId,
    nodeEpoch: w.nodeEpoch,
    config: deps.config,
    clock: deps.scope.clock,
    registeredEpoch: (id) => w.cluster.registeredEpoch(id),
    isAcceptable: (id) => w.cluster.isAcceptable(id),
    isConnected: (id) => !w.disconnected.has(id),
    rules: deps.rules ?? KAFKA_REPLICATION_RULES,
    events: partitionEvents({
      partition: (id) => w.partitions.get(id),
      flushOnAppend: deps.config.logFlushPolicy === 'always',
      purgatory: w.purgatory,
      notifier: w.notifier,
      sender: w.sender,
      afterChange: w.afterChange,
      onTruncate: (partition, toOffset, hw, reason) => {
        deps.observer?.onTruncate?.(deps.nodeId, partition, toOffset, hw, reason);
        if (toOffset < hw) w.trace(`WARNING truncating p${partition} to ${toOffset} below its HW ${hw} (${reason})`);
      },
      reportError: w.reportError,
    }),
  };
}

/** What each ReplicaFetcher of the node works with. */
export function fetcherHostFor(w: ReplicaWiring): FetcherHost {
  const { deps } = w;
  return {
    scope: deps.scope,
    config: deps.config,
    transport: deps.transport,
    nodeId: deps.nodeId,
    nodeEpoch: w.nodeEpoch,
    partition: (id) => w.partitions.get(id),
    peer: (id) => w.cluster.peer(id),
    afterFollowerUpdate: () => undefined,
    onError: w.reportError,
  };
}
