/**
 * The bounds of the wire fields, shared by the socket and REST validation of the server, the coordinator,
 * the assignors and the AsyncAPI document. Integers are Kafka's int32 as far as JSON numbers hold them
 * exactly; the coordinator applies the protocol's own ranges (e.g. session timeout →
 * INVALID_SESSION_TIMEOUT), the DTOs only refuse what no Kafka field could carry.
 */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
/**
 * A request's generation: Kafka's int32, where -1 (`UNKNOWN_GENERATION_ID` of JoinGroupRequest,
 * `DEFAULT_GENERATION_ID` of OffsetCommitRequest) is the one negative the protocol gives a meaning: no
 * generation (a simple consumer's commit, an admin's). Kafka reads any negative the same way; a client
 * sending another is refused INVALID_REQUEST here rather than read as -1.
 */
export const NO_GENERATION_ID = -1;
/** Kafka's limit on topic names (and on group instance ids, KIP-345). */
export const MAX_TOPIC_NAME_LENGTH = 249;
/**
 * Kafka's legal topic name and group.instance.id (`Topic.validate`): 1-249 of [a-zA-Z0-9._-]; "." and
 * ".." match but are not legal either.
 */
export const LEGAL_NAME_PATTERN = /^[a-zA-Z0-9._-]{1,249}$/;
/** Group ids, member ids, protocol names, client ids: generous, but bounded so no single field dominates a record. */
export const MAX_ID_LENGTH = 1_024;
/** The free-text reason of a JoinGroup or LeaveGroup. */
export const MAX_REASON_LENGTH = 4_096;
