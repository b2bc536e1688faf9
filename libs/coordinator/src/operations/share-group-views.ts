import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import type { GroupView } from '../ports/group-coordinator.api';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { ShareSlot } from '../share/share-partition-manager';
import type { CoordinatorShard } from '../shard/coordinator-shard';

/**
 * What REST shows of a share group (KIP-932, docs/rest.md): per share partition its start offset (SPSO),
 * the end producers reported, how many offsets are in each state and the oldest lease's age; its dead
 * letters; and the one way an archived offset comes back, a redelivery. Read from the shard's share
 * partitions, which hold only what their records committed or are writing.
 */

function bySlot(a: ShareSlot, b: ShareSlot): number {
  return a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : a.partition - b.partition;
}

function partitionView(slot: ShareSlot, now: number): P.SharePartitionView {
  const { available, acquired, acknowledged, archived, oldestLeaseAgeMs } = slot.state.summary(now);
  return {
    topic: slot.topic,
    partition: slot.partition,
    startOffset: slot.state.startOffset,
    endOffset: slot.state.reportedEnd,
    stateEpoch: slot.state.stateEpoch,
    offsets: { available, acquired, acknowledged, archived },
    oldestLeaseAgeMs,
  };
}

/** The share group of `groupId` on this shard, or undefined when it has no share partition here. */
export function shareGroupView(shard: CoordinatorShard, groupId: string, now: number): GroupView | undefined {
  const slots = shard.sharePartitions.slotsOf(groupId).sort(bySlot);
  if (slots.length === 0) return undefined;
  return {
    groupId,
    type: 'share',
    // Membership (ShareGroupHeartbeat) tells who works the partitions; until it reports members, none.
    state: 'Empty',
    protocolType: 'share',
    protocol: null,
    generationId: 0,
    leader: null,
    coordinatorPartition: shard.partition,
    members: [],
    sharePartitions: slots.map((slot) => partitionView(slot, now)),
  };
}

/** `GET /v1/groups/:groupId/dead-letters`: archived ranges (rejected or at the delivery limit), by partition. */
export function deadLetterView(shard: CoordinatorShard, groupId: string): P.DeadLetters {
  const slots = shard.sharePartitions.slotsOf(groupId).sort(bySlot);
  if (slots.length === 0) throw notAShareGroup(groupId);
  return {
    groupId,
    deadLetters: slots.flatMap((slot) =>
      slot.state.deadLetterList().map((d) => ({
        topic: slot.topic,
        partition: slot.partition,
        firstOffset: d.first,
        lastOffset: d.last,
        reason: d.reason,
        deliveryCount: d.count,
      })),
    ),
  };
}

/**
 * `POST /v1/groups/:groupId/dead-letters/redeliver`: the dead letters in the range become available,
 * counted from zero; the share partition's state is written and the answer leaves once it is committed.
 * A range with no dead letter in it changes nothing and writes nothing.
 */
export async function redeliverDeadLetters(
  shard: CoordinatorShard,
  groupId: string,
  request: P.RedeliverDeadLettersRequest,
): Promise<P.RedeliverDeadLettersResult> {
  if (shard.sharePartitions.slotsOf(groupId).length === 0) throw notAShareGroup(groupId);
  const slot = shard.sharePartitions.slot(groupId, request.topic, request.partition);
  if (!slot)
    throw KafkaError.of(
      'UNKNOWN_TOPIC_OR_PARTITION',
      `share group '${groupId}' has no state for ${request.topic}-${request.partition}`,
    );
  if (request.lastOffset < request.firstOffset)
    throw KafkaError.of('INVALID_REQUEST', 'lastOffset must not be below firstOffset');
  let result: CoordinatorResult<{ errorCode: number; message?: string }> | undefined;
  let redelivered = 0;
  shard.step(() => {
    redelivered = slot.state.redeliver(request.firstOffset, request.lastOffset);
    if (redelivered === 0) return;
    result = {
      ...shard.sharePartitions.write([slot], [], () => undefined),
      response: { errorCode: ErrorCode.NONE },
      onFailure: (outcome) => ({ errorCode: operationWriteError(outcome.storeError), message: outcome.message }),
    };
  });
  if (result) {
    const written = await shard.run(result);
    if (written && written.errorCode !== ErrorCode.NONE)
      throw new KafkaError(written.errorCode as P.ErrorCodeValue, written.message ?? 'the redelivery was not written');
  }
  return {
    groupId,
    topic: slot.topic,
    partition: slot.partition,
    redelivered,
    startOffset: slot.state.startOffset,
    stateEpoch: slot.state.stateEpoch,
  };
}

function notAShareGroup(groupId: string): KafkaError {
  return KafkaError.of('GROUP_ID_NOT_FOUND', `share group '${groupId}' does not exist (no share partition state)`);
}
