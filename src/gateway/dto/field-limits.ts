/**
 * Bounds for wire fields. Integers are Kafka's int32/int64 as far as JSON numbers hold them exactly; the
 * coordinator applies the protocol's own ranges (e.g. session timeout → INVALID_SESSION_TIMEOUT), the DTOs
 * only refuse what no Kafka field could carry.
 */
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
/** Kafka's limit on topic names (and on group instance ids, KIP-345). */
export const MAX_TOPIC_NAME_LENGTH = 249;
/** Group ids, member ids, protocol names, reasons: generous, but bounded so no single field dominates a record. */
export const MAX_ID_LENGTH = 1_024;
export const MAX_REASON_LENGTH = 4_096;
