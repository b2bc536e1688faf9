import type { ErrorFields, ErrorName } from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';

/** Kafka's messages for the errors the coordinator returns (Errors.java), used when no better one is known. */
const DEFAULT_MESSAGES: Partial<Record<ErrorName, string>> = {
  UNKNOWN_SERVER_ERROR: 'The server experienced an unexpected error when processing the request.',
  UNKNOWN_TOPIC_OR_PARTITION: 'This server does not host this topic-partition.',
  REQUEST_TIMED_OUT: 'The request timed out.',
  OFFSET_METADATA_TOO_LARGE: 'The metadata field of the offset request was too large.',
  COORDINATOR_LOAD_IN_PROGRESS: "The coordinator is loading and hence can't process requests.",
  COORDINATOR_NOT_AVAILABLE: 'The coordinator is not available.',
  NOT_COORDINATOR: 'This is not the correct coordinator.',
  ILLEGAL_GENERATION: 'Specified group generation id is not valid.',
  INCONSISTENT_GROUP_PROTOCOL:
    "The group member's supported protocols are incompatible with those of existing members or first group member tried to join with empty protocol type or empty protocol list.",
  INVALID_GROUP_ID: 'The configured groupId is invalid.',
  UNKNOWN_MEMBER_ID: 'The coordinator is not aware of this member.',
  INVALID_SESSION_TIMEOUT:
    'The session timeout is not within the range allowed by the broker (as configured by group.min.session.timeout.ms and group.max.session.timeout.ms).',
  REBALANCE_IN_PROGRESS: 'The group is rebalancing, so a rejoin is needed.',
  INVALID_COMMIT_OFFSET_SIZE: 'The committing offset data size is not valid.',
  INVALID_REQUEST: 'This most likely occurs because of a request being malformed by the client library.',
  NON_EMPTY_GROUP: 'The group is not empty.',
  GROUP_ID_NOT_FOUND: 'The group id does not exist.',
  MEMBER_ID_REQUIRED: 'The group member needs to have a valid member id before actually entering a consumer group.',
  GROUP_MAX_SIZE_REACHED: 'The consumer group has reached its max size.',
  FENCED_INSTANCE_ID:
    'The broker rejected this static consumer since another consumer with the same group.instance.id has registered with a different member.id.',
  GROUP_SUBSCRIBED_TO_TOPIC: 'The consumer group is actively subscribed to the topic.',
  UNSTABLE_OFFSET_COMMIT: 'There are unstable offsets that need to be cleared.',
};

/** The error part of a response: just `errorCode: 0` on success, with the name and a message otherwise. */
export function errorFields(code: number, message?: string): ErrorFields {
  if (code === ErrorCode.NONE) return { errorCode: 0 };
  const name = errorName(code);
  return { errorCode: code, errorName: name, errorMessage: message ?? DEFAULT_MESSAGES[name] ?? name };
}

export const NO_ERROR: ErrorFields = Object.freeze({ errorCode: 0 });
