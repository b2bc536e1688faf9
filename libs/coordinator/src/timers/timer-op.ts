/**
 * One change to a shard's timers, as a handler returns it (Kafka's `CoordinatorTimer.schedule` /
 * `cancel`, coordinator-common `runtime/CoordinatorTimer.java`): keyed, so scheduling a key replaces
 * whatever that key was armed with. `ShardTimers.apply` is the one place that arms and cancels them.
 */
export type TimerOp = { op: 'schedule'; key: string; delayMs: number; run: () => void } | { op: 'cancel'; key: string };
