import type { Partition } from '../partition/partition';
import type { DescribeLogEndsResponse } from '../transport/messages';

/**
 * How far this node's logs of `ids` go (those it has opened), with the epoch of each log's last record:
 * the answer to the controller's DescribeLogEnds, for its unclean recovery.
 */
export function logEndsOf(partitions: ReadonlyMap<number, Partition>, ids: number[]): DescribeLogEndsResponse {
  const ends = ids.flatMap((id) => {
    const p = partitions.get(id);
    if (!p) return [];
    const leo = p.log.logEndOffset;
    return [{ partition: id, logEndOffset: leo, lastEpoch: leo > 0 ? p.epochCache.epochAt(leo - 1) : -1 }];
  });
  return { ends };
}
