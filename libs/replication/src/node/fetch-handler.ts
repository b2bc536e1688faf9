import { ReplicationErrorCode as E } from '../api/replication-error-code';
import { serveFollowerFetch } from '../partition/leader-fetch';
import type { Partition } from '../partition/partition';
import type { FetchRequest, FetchResponse } from '../transport/messages';

/**
 * Serves every partition of a follower Fetch. `answerNow` is true when any partition has records, an
 * error or a divergence — otherwise the request may be parked (long-poll).
 */
export function serveFetch(
  lookup: (partition: number) => Partition | undefined,
  request: FetchRequest,
  updateState: boolean,
  afterChange: (p: Partition) => void,
): { response: FetchResponse; answerNow: boolean } {
  let answerNow = false;
  const partitions = request.partitions.map((req) => {
    const p = lookup(req.partition);
    if (!p) {
      answerNow = true;
      return {
        partition: req.partition,
        errorCode: E.UNKNOWN_TOPIC_OR_PARTITION,
        highWatermark: -1,
        logStartOffset: -1,
        logEndOffset: -1,
        batches: [],
      };
    }
    const outcome = serveFollowerFetch(p, req, request.replicaId, request.replicaEpoch, updateState);
    if (updateState) afterChange(p);
    answerNow ||= outcome.answerNow;
    return outcome.response;
  });
  return { response: { errorCode: E.NONE, partitions }, answerNow };
}
