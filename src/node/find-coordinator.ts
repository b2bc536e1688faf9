import { ErrorCode, errorName, type FindCoordinatorResponse } from '@cohort/protocol';
import type { CohortNode } from './cohort-node';

/**
 * FindCoordinator (docs/protocol.md): the node that leads the group's `__consumer_offsets` partition. With no
 * leader (an election in progress) the answer is COORDINATOR_NOT_AVAILABLE and the client retries, as
 * Kafka answers when the partition has no live leader.
 */
export function findCoordinator(node: CohortNode, key: string): FindCoordinatorResponse {
  const partition = node.coordinator.partitionFor(key);
  const leader = node.cluster.leaderOf(partition);
  if (!leader) {
    const errorCode = ErrorCode.COORDINATOR_NOT_AVAILABLE;
    return {
      errorCode,
      errorName: errorName(errorCode),
      errorMessage: `partition ${partition} of __consumer_offsets has no leader at the moment`,
      nodeId: -1,
      host: '',
      port: -1,
      url: '',
      partition,
    };
  }
  const url = new URL(leader.url);
  const port = url.port !== '' ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
  return { errorCode: ErrorCode.NONE, nodeId: leader.nodeId, host: url.hostname, port, url: leader.url, partition };
}
