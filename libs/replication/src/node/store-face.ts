import { KafkaError } from '@cohort/protocol';
import type { LogRecord } from '../api/log-record';
import type { AppendResult, PartitionOffsets, ReadResult, RecordVisitor } from '../api/partition-store.port';
import { readRecords, scanRecords } from '../log/read-records';
import type { Partition } from '../partition/partition';

/**
 * The `PartitionStore` operations on the replica this node hosts for one partition (or none), as the
 * coordinator sees them: acks=all appends in the caller's leader epoch, and a replica that does not
 * (or no longer) lead that epoch answers NOT_COORDINATOR, so the client finds the new coordinator.
 */
export function appendAsLeader(
  p: Partition | undefined,
  nodeId: number,
  partition: number,
  leaderEpoch: number,
  records: LogRecord[],
): AppendResult {
  if (!p || p.role !== 'leader' || p.leaderEpoch !== leaderEpoch) {
    throw KafkaError.of(
      'NOT_COORDINATOR',
      `node ${nodeId} does not lead partition ${partition} in epoch ${leaderEpoch}`,
    );
  }
  return p.appendAsLeader(records, -1, leaderEpoch);
}

export function awaitCommitted(
  p: Partition | undefined,
  nodeId: number,
  partition: number,
  leaderEpoch: number,
  lastOffset: number,
  timeoutMs: number,
): Promise<void> {
  if (!p) return Promise.reject(notHosted(nodeId, partition));
  return p.awaitCommit(leaderEpoch, lastOffset, timeoutMs).catch((e: unknown) => {
    if (e instanceof KafkaError && e.errorName === 'NOT_LEADER_OR_FOLLOWER')
      throw KafkaError.of('NOT_COORDINATOR', e.message);
    throw e;
  });
}

/**
 * The records in [fromOffset, min(upToOffset, LEO)), at most about `maxRecords`, and where the next
 * read starts (the coordinator's loader reads up to the HW with it).
 */
export function readUpTo(
  p: Partition | undefined,
  nodeId: number,
  partition: number,
  fromOffset: number,
  upToOffset: number,
  maxRecords: number,
): ReadResult {
  if (!p) throw notHosted(nodeId, partition);
  return readRecords(p.log, fromOffset, upToOffset, maxRecords);
}

/** The same range as `readUpTo`, each record visited in the read buffer (the loader's path); gives the next offset. */
export function scanUpTo(
  p: Partition | undefined,
  nodeId: number,
  partition: number,
  fromOffset: number,
  upToOffset: number,
  maxRecords: number,
  visit: RecordVisitor,
): number {
  if (!p) throw notHosted(nodeId, partition);
  return scanRecords(p.log, fromOffset, upToOffset, maxRecords, visit);
}

export function offsetsOf(p: Partition | undefined): PartitionOffsets {
  if (!p) return { logStartOffset: 0, logEndOffset: 0, highWatermark: 0 };
  return { logStartOffset: p.log.logStartOffset, logEndOffset: p.log.logEndOffset, highWatermark: p.hw };
}

function notHosted(nodeId: number, partition: number): KafkaError {
  return KafkaError.of('NOT_COORDINATOR', `partition ${partition} is not hosted on node ${nodeId}`);
}
