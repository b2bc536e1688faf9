/**
 * What the coordinator reports for metrics. The app maps these to prom-client; the library never
 * imports it. Every method is optional so a listener implements only what it exports.
 */
export interface CoordinatorMetrics {
  onRebalanceStarted?(groupId: string, reason: string): void;
  /** The group reached Stable (or Empty) after a rebalance that started `durationMs` ago. */
  onRebalanceCompleted?(groupId: string, durationMs: number): void;
  /** A consumer group's epoch moved (its epoch record committed), for `reason` (`EpochBumpReason`). */
  onConsumerEpochBump?(groupId: string, reason: string): void;
  /** Every member of a consumer group held its target `durationMs` after the epoch bump of `reason`. */
  onConsumerGroupConverged?(groupId: string, reason: string, durationMs: number): void;
  /** A server-side assignor ran for a group (docs/protocol.md): which one, whether its result was usable, how long it took. */
  onServerAssignment?(assignor: string, outcome: 'ok' | 'failed', durationMs: number): void;
  /** `count` offsets were committed (their records passed the high watermark). */
  onOffsetCommit?(count: number): void;
  /** `count` offsets were removed by retention (KIP-211). */
  onOffsetsExpired?(count: number): void;
  /** A member was removed because its session timed out. */
  onMemberExpired?(groupId: string): void;
  /** A JoinGroup was refused THROTTLING_QUOTA_EXCEEDED: its principal was at one of its membership limits. */
  onMemberQuotaRefused?(limit: 'members' | 'metadata-bytes'): void;
  /** A KIP-394 pending member id was dropped before its member joined with it. */
  onPendingMemberExpired?(reason: 'session-timeout' | 'connection-closed'): void;
  /** Share groups: `count` offsets were leased (their lease record committed and the answer left). */
  onShareOffsetsLeased?(count: number): void;
  /** Share groups: `count` offsets were acknowledged with `type` (their record committed). */
  onShareOffsetsAcknowledged?(type: 'gap' | 'accept' | 'release' | 'reject', count: number): void;
  /** A write to `__consumer_offsets` failed with this (store) error code. */
  onWriteFailed?(partition: number, errorCode: number): void;
  /** A group was removed (deleted, or empty with its offsets expired): its id is free again. */
  onGroupRemoved?(groupId: string): void;
  /** A partition finished loading: how long it took and what it brought back. */
  onPartitionLoaded?(partition: number, durationMs: number, groups: number, offsets: number): void;
}

/** Where the coordinator logs what an operator would want to know (the app passes its pino logger). */
export interface CoordinatorLogger {
  /** Per-partition detail (elections, loads): one line per partition is noise at start. */
  debug?(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const SILENT_LOGGER: CoordinatorLogger = { info: () => {}, warn: () => {}, error: () => {} };
