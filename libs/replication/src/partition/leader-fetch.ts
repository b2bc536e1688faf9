import { ReplicationErrorCode as E } from '../api/replication-error-code';
import type { FetchPartitionRequest, FetchPartitionResponse } from '../transport/messages';
import { UNDEFINED_EPOCH } from '../transport/messages';
import { maybeExpandIsr } from './isr-changes';
import type { Partition } from './partition';
import { updateFetchState } from './remote-replica';

export interface FollowerFetchOutcome {
  response: FetchPartitionResponse;
  /** The response carries records, an error or a divergence: answer now instead of long-polling. */
  answerNow: boolean;
}

/**
 * The leader serving one partition of a follower's Fetch (Partition.fetchRecords):
 * epoch fencing (KIP-320), the divergence check on the last fetched epoch (KIP-595), the read up to
 * the LEO, and — only for a clean, error-free fetch (KAFKA-13141, I20) — the follower's new state,
 * ISR expansion and the HW. `updateState` is false when a parked fetch is re-read on completion.
 */
export function serveFollowerFetch(
  p: Partition,
  req: FetchPartitionRequest,
  replicaId: number,
  replicaEpoch: number,
  updateState: boolean,
): FollowerFetchOutcome {
  const log = p.log;
  const base = {
    partition: p.partition,
    highWatermark: p.hw,
    logStartOffset: log.logStartOffset,
    logEndOffset: log.logEndOffset,
    batches: [],
  };
  const fail = (errorCode: number): FollowerFetchOutcome => ({ response: { ...base, errorCode }, answerNow: true });

  // Epochs first, as Kafka's localLogWithEpochOrThrow: a zombie that missed the new epoch answers
  // UNKNOWN_LEADER_EPOCH (the follower retries elsewhere), a stale follower FENCED_LEADER_EPOCH.
  if (req.currentLeaderEpoch < p.leaderEpoch) return fail(E.FENCED_LEADER_EPOCH);
  if (req.currentLeaderEpoch > p.leaderEpoch) return fail(E.UNKNOWN_LEADER_EPOCH);
  if (p.role !== 'leader') return fail(E.NOT_LEADER_OR_FOLLOWER);
  const remote = p.remotes.get(replicaId);
  if (!remote) return fail(E.UNKNOWN_LEADER_EPOCH);
  const registered = p.ctx.registeredEpoch(replicaId);
  // KIP-903: a fetch from an older incarnation than the registered one must not move any state.
  if (registered !== undefined && replicaEpoch < registered) return fail(E.NOT_LEADER_OR_FOLLOWER);

  // Snapshot before reading: the follower learns the HW as it was before this fetch's effect.
  const initialHw = p.hw;
  const initialLeo = log.logEndOffset;
  const initialLogStart = log.logStartOffset;

  if (req.fetchOffset < initialLogStart) return fail(E.OFFSET_OUT_OF_RANGE);
  if (req.lastFetchedEpoch !== UNDEFINED_EPOCH) {
    const end = p.epochCache.endOffsetFor(req.lastFetchedEpoch, initialLeo);
    if (end.epoch < 0 || end.endOffset < 0) return fail(E.OFFSET_OUT_OF_RANGE);
    if (end.epoch < req.lastFetchedEpoch || end.endOffset < req.fetchOffset) {
      return {
        response: {
          ...base,
          errorCode: E.NONE,
          highWatermark: initialHw,
          divergingEpoch: { epoch: end.epoch, endOffset: end.endOffset },
        },
        answerNow: true,
      };
    }
  }
  if (req.fetchOffset > initialLeo) return fail(E.OFFSET_OUT_OF_RANGE);

  const batches =
    req.fetchOffset < initialLeo ? log.read(req.fetchOffset, initialLeo, Math.max(1, req.maxRecords)) : [];
  if (updateState) {
    const leoBefore = remote.leo;
    updateFetchState(remote, req.fetchOffset, req.logStartOffset, p.ctx.clock.now(), initialLeo, replicaEpoch);
    maybeExpandIsr(p, remote);
    if (remote.leo !== leoBefore) p.maybeIncrementHighWatermark();
  }
  const response: FetchPartitionResponse = {
    partition: p.partition,
    errorCode: E.NONE,
    highWatermark: initialHw,
    logStartOffset: initialLogStart,
    logEndOffset: initialLeo,
    batches,
  };
  if (batches.length > 0) {
    const lastBatch = batches[batches.length - 1].records;
    const last = lastBatch[lastBatch.length - 1].offset;
    const starts = p.epochCache.list().filter((e) => e.startOffset >= req.fetchOffset && e.startOffset <= last);
    if (starts.length > 0) response.epochStarts = starts;
  }
  return { response, answerNow: batches.length > 0 };
}
