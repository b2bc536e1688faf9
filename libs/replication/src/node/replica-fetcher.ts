import { ReplicationErrorCode as E } from '../api/replication-error-code';
import { applyFetchResponse, followerFetchRequest } from '../partition/follower-sync';
import type { Partition } from '../partition/partition';
import type { ReplicationConfig } from '../replication-config';
import type { FetchPartitionRequest, FetchResponse } from '../transport/messages';
import type { PeerAddress, Transport } from '../transport/transport.port';
import type { TaskScope } from './task-scope';

export interface FetcherHost {
  readonly scope: TaskScope;
  readonly config: ReplicationConfig;
  readonly transport: Transport;
  readonly nodeId: number;
  nodeEpoch(): number;
  partition(partition: number): Partition | undefined;
  peer(nodeId: number): PeerAddress | undefined;
  /** A follower partition changed (appended, truncated or its HW moved). */
  afterFollowerUpdate(partition: Partition): void;
  /** The fetcher failed on something unexpected (a bug or a failed disk): report, back off, go on. */
  onError(error: unknown, context: string): void;
}

interface FetchState {
  /** Bumped on every (re)start of the partition: responses to older requests are dropped. */
  generation: number;
  delayedUntil: number;
  /** FENCED_LEADER_EPOCH: our epoch is stale; wait for metadata to restart us. */
  awaitingMetadata: boolean;
}

/**
 * One follower fetch loop per source leader (AbstractFetcherThread): a single Fetch
 * carries every partition this node follows on that leader; each partition's answer is applied on its
 * own. Under LOG_FLUSH_POLICY=always the logs are flushed before the next fetch, because the fetch
 * offset tells the leader what this replica durably holds.
 */
export class ReplicaFetcher {
  private readonly states = new Map<number, FetchState>();
  private generation = 0;
  private running = false;
  private stopped = false;
  private wakeUp: (() => void) | undefined;

  constructor(
    readonly leaderId: number,
    private readonly host: FetcherHost,
  ) {}

  get partitionCount(): number {
    return this.states.size;
  }

  has(partition: number): boolean {
    return this.states.has(partition);
  }

  /** Starts (or restarts, after an epoch change) fetching `partition` from this leader. */
  add(partition: number): void {
    this.states.set(partition, { generation: ++this.generation, delayedUntil: 0, awaitingMetadata: false });
    this.kick();
  }

  remove(partition: number): void {
    this.states.delete(partition);
  }

  stop(): void {
    this.stopped = true;
    this.states.clear();
    this.kick();
  }

  private kick(): void {
    const wake = this.wakeUp;
    this.wakeUp = undefined;
    wake?.();
    if (!this.running && !this.stopped && this.states.size > 0) {
      this.running = true;
      void this.loop().finally(() => (this.running = false));
    }
  }

  private async loop(): Promise<void> {
    const { scope, config } = this.host;
    while (!this.stopped && !scope.closed && this.states.size > 0) {
      const ready = this.readyPartitions();
      if (ready.length === 0) {
        await this.idle();
        continue;
      }
      try {
        if (config.logFlushPolicy === 'always')
          await Promise.all(ready.map(([p]) => (p.log.flushedOffset < p.log.logEndOffset ? p.log.flush() : undefined)));
      } catch (e) {
        this.host.onError(e, `flush before fetching from ${this.leaderId}`);
        this.backOff(ready.map(([p]) => p.partition));
        continue;
      }
      if (this.stopped || scope.closed) return;
      await this.fetchOnce(this.readyPartitions());
    }
  }

  private readyPartitions(): Array<[Partition, FetchState]> {
    const now = this.host.scope.clock.now();
    const out: Array<[Partition, FetchState]> = [];
    for (const [id, s] of this.states) {
      const p = this.host.partition(id);
      if (!p || p.role !== 'follower' || p.leaderId !== this.leaderId || s.awaitingMetadata || s.delayedUntil > now)
        continue;
      out.push([p, s]);
    }
    return out;
  }

  private async fetchOnce(ready: Array<[Partition, FetchState]>): Promise<void> {
    if (ready.length === 0) return;
    const { config, transport, scope } = this.host;
    const peer = this.host.peer(this.leaderId);
    if (!peer) return this.backOff(ready.map(([p]) => p.partition));
    const sent = ready.map(([p, s]) => ({
      partition: p,
      generation: s.generation,
      request: followerFetchRequest(p, config.replicaFetchMaxRecords),
    }));
    let response: FetchResponse;
    try {
      response = await transport.send(
        peer,
        'fetch',
        {
          replicaId: this.host.nodeId,
          replicaEpoch: this.host.nodeEpoch(),
          maxWaitMs: config.replicaFetchWaitMaxMs,
          partitions: sent.map((s) => s.request),
        },
        config.requestTimeoutMs + config.replicaFetchWaitMaxMs,
      );
    } catch {
      if (!scope.closed) this.backOff(sent.map((s) => s.partition.partition));
      return;
    }
    if (this.stopped || scope.closed) return;
    if (response.errorCode !== E.NONE) return this.backOff(sent.map((s) => s.partition.partition));
    for (const s of sent) {
      const answer = response.partitions.find((r) => r.partition === s.partition.partition);
      const state = this.states.get(s.partition.partition);
      if (!answer || !state || state.generation !== s.generation) continue;
      this.applyOne(s.partition, state, s.request, answer);
    }
  }

  private applyOne(
    p: Partition,
    state: FetchState,
    request: FetchPartitionRequest,
    answer: Parameters<typeof applyFetchResponse>[2],
  ): void {
    try {
      const next = applyFetchResponse(p, request, answer);
      if (next === 'backoff') state.delayedUntil = this.host.scope.clock.now() + this.host.config.replicaFetchBackoffMs;
      if (next === 'await-metadata') state.awaitingMetadata = true;
      this.host.afterFollowerUpdate(p);
    } catch (e) {
      this.host.onError(e, `applying fetch response for partition ${p.partition}`);
      state.delayedUntil = this.host.scope.clock.now() + this.host.config.replicaFetchBackoffMs;
    }
  }

  private backOff(partitions: number[]): void {
    const until = this.host.scope.clock.now() + this.host.config.replicaFetchBackoffMs;
    for (const id of partitions) {
      const s = this.states.get(id);
      if (s) s.delayedUntil = until;
    }
  }

  /** Waits for the earliest back-off to end or for a kick (new partition, stop). */
  private idle(): Promise<void> {
    const now = this.host.scope.clock.now();
    let wait = this.host.config.replicaFetchBackoffMs;
    for (const s of this.states.values())
      if (!s.awaitingMetadata && s.delayedUntil > now) wait = Math.min(wait, s.delayedUntil - now);
    return new Promise<void>((resolve) => {
      const timer = this.host.scope.schedule(Math.max(1, wait), () => finish());
      const finish = () => {
        timer.cancel();
        if (this.wakeUp === finish) this.wakeUp = undefined;
        resolve();
      };
      this.wakeUp = finish;
    });
  }
}
