import type { WriteOutcome } from '../runtime/coordinator-result';

/**
 * The messages of the per-partition errors of ShareAcquire and ShareAcknowledge answers, as Kafka's
 * ShareFetch and ShareAcknowledge answers carry an ErrorMessage (and AcknowledgeErrorMessage) beside each
 * partition's code: the exception's message where the share partition refused (SharePartitionManager
 * `mapAcknowledgementFutures`), the error's own message otherwise (ShareFetchUtils). Each names what
 * Cohort knows: the partition, the member, the offsets.
 */

/** 29: READ TOPIC refused (Kafka's "Topic authorization failed."). */
export function topicNotReadable(topic: string): string {
  return `Topic authorization failed: READ on topic '${topic}' is not allowed.`;
}

/** 3: an acknowledgement of a partition the member is not assigned. */
export function notAssigned(topic: string, partition: number, memberId: string): string {
  return `${topic}-${partition} is not assigned to member ${memberId}.`;
}

/** 42: an acknowledgement of offsets of a partition the group never acquired from. */
export function nothingAcquired(topic: string, partition: number): string {
  return `The offsets cannot be acknowledged: nothing of ${topic}-${partition} was ever acquired.`;
}

/** A write error: the partition's leases or acknowledgements were taken back. */
export function writeFailed(
  topic: string,
  partition: number,
  what: 'leases' | 'acknowledgements',
  outcome: Extract<WriteOutcome, { ok: false }>,
): string {
  return `The write of ${topic}-${partition}'s state failed (${outcome.message}): its ${what} were taken back.`;
}
