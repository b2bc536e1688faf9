import type { ClassicGroup } from '../group/classic-group';
import type { CommittedOffset } from '../group/group-offsets';
import type { PartitionRef } from './offset-writes';

/**
 * Which committed offsets of a group have expired, by KIP-211's rules (Kafka's `removeExpiredOffsets`):
 * - a group with a protocol type that is Empty: every offset, once the group has been Empty for the
 *   retention period (measured from the commit when the time it became Empty is unknown);
 * - a Stable `consumer` group whose subscriptions are known: offsets of topics it no longer subscribes
 *   to, once the retention period passed since their commit;
 * - a group without protocol type (offsets only, manual assignment): each offset, retention after its commit;
 * - any other group: none.
 * A legacy commit that carries its own expiry uses it instead. Partitions being written never expire.
 */
export function expiredOffsets(group: ClassicGroup, now: number, retentionMs: number): PartitionRef[] {
  let since: (o: CommittedOffset) => number;
  let keep: ReadonlySet<string> = new Set();
  if (group.protocolType !== null && group.is('Empty')) {
    since = (o) => group.currentStateTimestamp ?? o.commitTimestamp;
  } else if (group.isConsumerGroup && group.subscribedTopics !== null && group.is('Stable')) {
    since = (o) => o.commitTimestamp;
    keep = group.subscribedTopics;
  } else if (group.protocolType === null) {
    since = (o) => o.commitTimestamp;
  } else {
    return [];
  }
  return group.offsets
    .all()
    .filter(({ topic, partition, value }) => {
      if (keep.has(topic) || group.offsets.isStaged(topic, partition)) return false;
      return value.expireTimestamp === null ? now - since(value) >= retentionMs : now >= value.expireTimestamp;
    })
    .map(({ topic, partition }) => ({ topic, partition }));
}
