import { KafkaError } from '@cohort/protocol';
import type { LogRecord } from '../api/log-record';
import type { AppendResult } from '../api/partition-store.port';
import type { LeaderEpochCache } from '../epoch/leader-epoch-cache';
import type { PartitionLog } from '../log/partition-log';
import { NO_LEADER, type IsrMember, type PartitionState } from '../metadata/partition-state';
import { effectiveMinIsr } from '../replication-config';
import { CommitWaiters } from './commit-waiters';
import type { HighWatermarkInputs } from './high-watermark';
import { isPending, maximalIsr, type IsrState } from './isr-state';
import type { PartitionContext } from './partition-context';
import { newRemoteReplica, resetForNewEpoch, type RemoteReplicaState } from './remote-replica';

export type PartitionRole = 'leader' | 'follower' | 'offline';

/**
 * One replica of one partition on this node (Kafka's Partition.scala): its local log and epoch cache,
 * its role from the controller's metadata, and — while leader — one state object per follower, the ISR
 * state and the commit waiters. Leader-side fetch serving and follower-side fetch results live in
 * `leader-fetch.ts` and `follower-sync.ts`; ISR changes in `isr-changes.ts`.
 *
 * All methods run on the node's single event loop, so a method is one atomic step.
 */
export class Partition {
  role: PartitionRole = 'offline';
  leaderId = NO_LEADER;
  leaderEpoch = -1;
  partitionEpoch = -1;
  replicas: number[] = [];
  hw: number;
  /** Leader only: the LEO when this node became leader of `leaderEpoch` (-1 otherwise). */
  leaderEpochStartOffset = -1;
  readonly remotes = new Map<number, RemoteReplicaState>();
  isrState: IsrState = { kind: 'committed', isr: [], recovery: 'RECOVERED' };
  readonly waiters: CommitWaiters;

  constructor(
    readonly partition: number,
    readonly log: PartitionLog,
    readonly epochCache: LeaderEpochCache,
    initialHw: number,
    readonly ctx: PartitionContext,
  ) {
    this.waiters = new CommitWaiters(ctx.clock);
    // A stale checkpoint is harmless (I23): the HW only bounds visibility and is clamped to the log.
    this.hw = Math.min(Math.max(initialHw, log.logStartOffset), log.logEndOffset);
  }

  get logEndOffset(): number {
    return this.log.logEndOffset;
  }

  /** The committed ISR as this node last learned it (the leader's own view while leader). */
  get isr(): IsrMember[] {
    return this.isrState.isr;
  }

  // ---- role changes (from metadata) ---------------------------------------------------------

  /**
   * Becomes (or stays) leader per `state` (Partition.makeLeader). On a new leader
   * epoch the epoch cache gets (epoch, LEO) before any append (I6, KAFKA-7415) and follower states
   * reset. Returns false when the state is older than what this replica knows.
   */
  makeLeader(state: PartitionState): boolean {
    if (state.partitionEpoch < this.partitionEpoch) return false;
    if (
      this.role === 'leader' &&
      state.partitionEpoch === this.partitionEpoch &&
      state.leaderEpoch === this.leaderEpoch
    )
      return false;
    const now = this.ctx.clock.now();
    const wasLeader = this.role === 'leader';
    const newEpoch = !wasLeader || state.leaderEpoch > this.leaderEpoch;
    if (wasLeader && newEpoch) {
      this.waiters.failAll('NOT_LEADER_OR_FOLLOWER', `leader epoch ${this.leaderEpoch} ended`);
    }
    this.replicas = [...state.replicas];
    if (newEpoch) {
      this.leaderEpochStartOffset = this.log.logEndOffset;
      this.epochCache.assign(state.leaderEpoch, this.leaderEpochStartOffset);
      const isrIds = new Set(state.isr.map((m) => m.nodeId));
      for (const id of [...this.remotes.keys()]) if (!state.replicas.includes(id)) this.remotes.delete(id);
      for (const id of state.replicas) {
        if (id === this.ctx.nodeId) continue;
        let remote = this.remotes.get(id);
        if (!remote || !wasLeader) this.remotes.set(id, (remote = newRemoteReplica(id)));
        resetForNewEpoch(remote, wasLeader, isrIds.has(id), now, this.leaderEpochStartOffset);
      }
    }
    this.role = 'leader';
    this.leaderId = this.ctx.nodeId;
    this.leaderEpoch = state.leaderEpoch;
    this.partitionEpoch = state.partitionEpoch;
    this.isrState = { kind: 'committed', isr: state.isr.map((m) => ({ ...m })), recovery: state.leaderRecoveryState };
    this.maybeIncrementHighWatermark();
    return true;
  }

  /**
   * Follows `state.leader` (or nobody: `offline`). Pending commits of a leadership fail first
   * (NOT_LEADER_OR_FOLLOWER, which the store turns into NOT_COORDINATOR). No truncation here: a
   * follower truncates only by epochs, from the leader's answer (Partition.makeFollower; docs/guarantees.md I5). Returns true when
   * the fetcher must (re)start: a new leader or leader epoch (KAFKA-7164).
   */
  makeFollower(state: PartitionState, role: 'follower' | 'offline'): boolean {
    if (state.partitionEpoch < this.partitionEpoch) return false;
    const restart = this.role !== role || state.leader !== this.leaderId || state.leaderEpoch !== this.leaderEpoch;
    if (this.role === 'leader') this.resign(`leadership moved to ${state.leader} in epoch ${state.leaderEpoch}`);
    this.role = role;
    this.leaderId = state.leader;
    this.leaderEpoch = state.leaderEpoch;
    this.partitionEpoch = state.partitionEpoch;
    this.replicas = [...state.replicas];
    this.isrState = { kind: 'committed', isr: state.isr.map((m) => ({ ...m })), recovery: state.leaderRecoveryState };
    if (restart && role === 'follower') this.ctx.rules.onStartFollowing(this);
    return restart;
  }

  /** Stops leading without new metadata (this node fenced itself or is shutting down). */
  resignLocally(reason: string): void {
    if (this.role !== 'leader') return;
    this.resign(reason);
    this.role = 'offline';
  }

  private resign(reason: string): void {
    this.waiters.failAll('NOT_LEADER_OR_FOLLOWER', reason);
    this.remotes.clear();
    this.leaderEpochStartOffset = -1;
  }

  // ---- leader: append and HW ------------------------------------------------------------------

  /**
   * Leader append (Partition.appendRecordsToLeader). With acks=all it is refused
   * before anything is written while the committed ISR is below the minimum (I11).
   */
  appendAsLeader(records: LogRecord[], acks: -1 | 0 | 1, leaderEpoch?: number): AppendResult {
    if (this.role !== 'leader' || (leaderEpoch !== undefined && leaderEpoch !== this.leaderEpoch)) {
      throw KafkaError.of(
        'NOT_LEADER_OR_FOLLOWER',
        `node ${this.ctx.nodeId} does not lead partition ${this.partition}${leaderEpoch === undefined ? '' : ` in epoch ${leaderEpoch}`}`,
      );
    }
    if (acks === -1 && this.isrState.isr.length < this.minIsr()) {
      throw KafkaError.of(
        'NOT_ENOUGH_REPLICAS',
        `ISR of partition ${this.partition} has ${this.isrState.isr.length} < ${this.minIsr()} replicas`,
      );
    }
    this.epochCache.assign(this.leaderEpoch, this.log.logEndOffset);
    const batch = this.log.appendAsLeader(records, this.leaderEpoch);
    const lastOffset = batch.records[batch.records.length - 1].offset;
    this.ctx.events.onLeaderAppend(this.partition);
    this.maybeIncrementHighWatermark();
    return { baseOffset: batch.baseOffset, lastOffset };
  }

  /** Resolves when the HW passes `lastOffset` in `leaderEpoch` (DelayedProduce). */
  awaitCommit(leaderEpoch: number, lastOffset: number, timeoutMs: number): Promise<void> {
    if (this.role !== 'leader' || leaderEpoch !== this.leaderEpoch) {
      return Promise.reject(
        KafkaError.of('NOT_LEADER_OR_FOLLOWER', `partition ${this.partition} is not led here in epoch ${leaderEpoch}`),
      );
    }
    if (this.hw > lastOffset) {
      if (maximalIsr(this.isrState).size >= this.minIsr()) return Promise.resolve();
      return Promise.reject(
        KafkaError.of('NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'committed, but the ISR fell below MIN_INSYNC_REPLICAS'),
      );
    }
    return this.waiters.wait(leaderEpoch, lastOffset + 1, timeoutMs);
  }

  minIsr(): number {
    return effectiveMinIsr(this.ctx.config, this.replicas.length);
  }

  /** The leader's own LEO as it counts for the HW: only flushed data under LOG_FLUSH_POLICY=always. */
  leaderCountedEnd(): number {
    return this.ctx.config.logFlushPolicy === 'always' ? this.log.flushedOffset : this.log.logEndOffset;
  }

  /** Recomputes the HW; on a rise completes commit waiters. Returns whether it rose. */
  maybeIncrementHighWatermark(): boolean {
    if (this.role !== 'leader') return false;
    const now = this.ctx.clock.now();
    const inputs: HighWatermarkInputs = {
      currentHw: this.hw,
      leaderLogEndOffset: this.leaderCountedEnd(),
      leaderLogEndOffsetForLag: this.log.logEndOffset,
      committedIsrSize: this.isrState.isr.length,
      effectiveMinIsr: this.minIsr(),
      maximalIsr: maximalIsr(this.isrState),
      remotes: [...this.remotes.values()],
      nowMs: now,
      replicaLagTimeMaxMs: this.ctx.config.replicaLagTimeMaxMs,
      isIsrEligible: (r: RemoteReplicaState) => this.isIsrEligible(r),
    };
    const newHw = this.ctx.rules.leaderHighWatermark(inputs);
    if (newHw <= this.hw) return false;
    if (newHw > this.log.logEndOffset)
      throw new Error(`HW ${newHw} beyond LEO ${this.log.logEndOffset} on partition ${this.partition}`);
    this.hw = newHw;
    this.ctx.events.onHighWatermark(this.partition, this.leaderEpoch, newHw);
    this.waiters.complete(this.leaderEpoch, newHw, maximalIsr(this.isrState).size >= this.minIsr());
    return true;
  }

  /**
   * ISR-eligible (KRaft): registered, not shutting down, and fetching with its current node epoch — and,
   * here, still connected: a follower whose process is gone must not hold the HW as a caught-up
   * non-member (as KAFKA-15021 excludes a shutting-down one), since only the maximal ISR bounds it.
   */
  isIsrEligible(r: RemoteReplicaState): boolean {
    const registered = this.ctx.registeredEpoch(r.nodeId);
    return (
      registered !== undefined &&
      this.ctx.isAcceptable(r.nodeId) &&
      this.ctx.isConnected(r.nodeId) &&
      (r.nodeEpoch === -1 || r.nodeEpoch === registered)
    );
  }

  isIsrChangePending(): boolean {
    return isPending(this.isrState);
  }

  // ---- both roles -----------------------------------------------------------------------------

  /** Truncates log and epoch cache together (the cache even when no record goes, I3). */
  truncateTo(offset: number, reason: string): void {
    this.ctx.events.onTruncate(this.partition, offset, this.hw, reason);
    this.log.truncateTo(offset);
    this.epochCache.truncateFromEnd(Math.max(offset, this.log.logStartOffset));
    this.hw = Math.min(this.hw, this.log.logEndOffset);
  }

  /** KIP-207: the latest committed offset, or OFFSET_NOT_AVAILABLE while a new leader's HW is below its epoch start. */
  latestCommittedOffset(): number | 'OFFSET_NOT_AVAILABLE' | 'NOT_LEADER_OR_FOLLOWER' {
    if (this.role !== 'leader') return 'NOT_LEADER_OR_FOLLOWER';
    return this.hw < this.leaderEpochStartOffset ? 'OFFSET_NOT_AVAILABLE' : this.hw;
  }

  /** Leader of the current epoch with everything of earlier epochs committed: safe to load by replay. */
  isLoadable(): boolean {
    return this.role === 'leader' && this.hw >= this.leaderEpochStartOffset;
  }
}
