/** Thrown inside the rebalance loop to start the next JoinGroup at once (79, 25, 22, 27: Kafka retries those immediately). */
export class RejoinNow extends Error {}
