/**
 * The deadlines of a classic member in a consumer group (Kafka's `consumer-group-join-timeout` and
 * `consumer-group-sync-timeout`): a member told to rejoin must send its JoinGroup, and a member that
 * joined must send its SyncGroup, within its rebalance timeout, or it is fenced.
 */
export const classicJoinTimeoutKey = (groupId: string, memberId: string): string =>
  `consumer-classic-join\u0000${groupId}\u0000${memberId}`;

export const classicSyncTimeoutKey = (groupId: string, memberId: string): string =>
  `consumer-classic-sync\u0000${groupId}\u0000${memberId}`;
