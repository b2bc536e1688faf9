/** A consumer group member's session expiry (the shard's timer key). */
export const consumerSessionKey = (groupId: string, memberId: string): string =>
  `consumer-session\u0000${groupId}\u0000${memberId}`;

/** The deadline of a consumer group member that must revoke partitions. */
export const consumerRebalanceKey = (groupId: string, memberId: string): string =>
  `consumer-rebalance\u0000${groupId}\u0000${memberId}`;
