import { ReplicationErrorCode as E } from '../api/replication-error-code';
import { truncationPoint } from '../epoch/truncation-point';
import type { StoredBatch } from '../log/partition-log';
import type { FetchPartitionRequest, FetchPartitionResponse } from '../transport/messages';
import { UNDEFINED_EPOCH } from '../transport/messages';
import type { Partition } from './partition';

/** What the fetcher does next with a partition after a response. */
export type FollowerNext = 'fetch' | 'backoff' | 'await-metadata';

/** The follower's next Fetch for `p`: from its LEO, with its latest epoch. */
export function followerFetchRequest(p: Partition, maxRecords: number): FetchPartitionRequest {
  const latest = p.epochCache.latestEpoch();
  return {
    partition: p.partition,
    currentLeaderEpoch: p.leaderEpoch,
    fetchOffset: p.log.logEndOffset,
    lastFetchedEpoch: latest < 0 ? UNDEFINED_EPOCH : latest,
    logStartOffset: p.log.logStartOffset,
    maxRecords,
  };
}

/**
 * Applies the leader's answer for one partition (AbstractFetcherThread.processFetchRequest):
 * a diverging epoch truncates by epochs (KIP-101/279); records are appended with the leader's
 * offsets and epochs (I7); the follower's HW becomes a clamped copy of the leader's (I13). A response
 * to a fetch from another offset or epoch than the current one is stale and dropped.
 */
export function applyFetchResponse(
  p: Partition,
  request: FetchPartitionRequest,
  response: FetchPartitionResponse,
): FollowerNext {
  if (
    p.role !== 'follower' ||
    request.currentLeaderEpoch !== p.leaderEpoch ||
    request.fetchOffset !== p.log.logEndOffset
  )
    return 'fetch';
  switch (response.errorCode) {
    case E.NONE:
      if (response.divergingEpoch) truncateOnDivergence(p, request, response.divergingEpoch);
      else appendFromLeader(p, response);
      return 'fetch';
    case E.OFFSET_OUT_OF_RANGE:
      // Only reachable after an unclean election: the leader's log ends before ours.
      if (response.logEndOffset < p.log.logEndOffset) {
        p.truncateTo(response.logEndOffset, `out of range: leader LEO ${response.logEndOffset}`);
        return 'fetch';
      }
      return 'backoff';
    case E.FENCED_LEADER_EPOCH:
      return 'await-metadata';
    default:
      return 'backoff';
  }
}

function truncateOnDivergence(
  p: Partition,
  request: FetchPartitionRequest,
  diverging: { epoch: number; endOffset: number },
): void {
  const leo = p.log.logEndOffset;
  const point = truncationPoint(diverging, (epoch) => p.epochCache.endOffsetFor(epoch, leo), leo, request.fetchOffset);
  p.truncateTo(point.offset, `diverging epoch ${diverging.epoch} ends at ${diverging.endOffset}`);
  // When `point.iterate`, the next fetch carries our new latest epoch and the leader re-checks (KIP-279).
}

function appendFromLeader(p: Partition, response: FetchPartitionResponse): void {
  const batches = trimToLogEnd(response.batches, p.log.logEndOffset);
  if (batches.length > 0) {
    // The epoch entries go to the checkpoint before the records: an entry beyond a crashed log's end
    // is dropped on recovery, whereas a batch without its entry would confuse truncation.
    // Where a new epoch starts is the leader's word (its epoch cache), not the first batch received:
    // compaction may have removed the epoch's first batches on the leader, and a replica holding stale
    // records in that gap must still be told to truncate them (simulator seeds 928 and 745). Without
    // the leader's word, the epoch is taken to start where our log ended — the safe side.
    const starts = new Map((response.epochStarts ?? []).map((e) => [e.epoch, e.startOffset]));
    let end = p.log.logEndOffset;
    for (const b of batches) {
      if (b.leaderEpoch > p.epochCache.latestEpoch()) {
        const told = starts.get(b.leaderEpoch);
        p.epochCache.assign(b.leaderEpoch, told === undefined ? end : Math.max(end, Math.min(told, b.baseOffset)));
      }
      end = b.records[b.records.length - 1].offset + 1;
    }
    try {
      p.log.appendAsFollower(batches);
    } catch (e) {
      p.epochCache.truncateFromEnd(p.log.logEndOffset);
      throw e;
    }
  }
  const log = p.log;
  p.hw = Math.min(Math.max(response.highWatermark, log.logStartOffset), log.logEndOffset);
}

/** Drops records the follower already has (a fetch may start inside a batch after a truncation). */
function trimToLogEnd(batches: StoredBatch[], logEndOffset: number): StoredBatch[] {
  const out: StoredBatch[] = [];
  for (const b of batches) {
    const records = b.records.filter((r) => r.offset >= logEndOffset);
    if (records.length === 0) continue;
    out.push(
      records.length === b.records.length && b.baseOffset >= logEndOffset
        ? b
        : { ...b, baseOffset: Math.max(b.baseOffset, logEndOffset), records },
    );
  }
  return out;
}
