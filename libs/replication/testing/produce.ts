import { KafkaError } from '@cohort/protocol';
import type { AppendResult, LogRecord, ReplicaManager } from '@cohort/replication';

/**
 * Kafka-style produce on a node's replicas, for the simulator, tests and benchmarks: acks 0/1/-1, and
 * with -1 a wait for the HW of up to `timeoutMs`. The coordinator appends through `PartitionStore` instead.
 */
export async function produce(
  replicas: ReplicaManager,
  partition: number,
  records: LogRecord[],
  acks: -1 | 0 | 1,
  timeoutMs: number,
): Promise<AppendResult> {
  const p = replicas.partition(partition);
  if (!p)
    throw KafkaError.of('NOT_LEADER_OR_FOLLOWER', `partition ${partition} is not hosted on node ${replicas.nodeId}`);
  const epoch = p.leaderEpoch;
  const result = p.appendAsLeader(records, acks);
  if (acks === -1) await p.awaitCommit(epoch, result.lastOffset, timeoutMs);
  return result;
}
