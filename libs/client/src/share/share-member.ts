import type { TopicPartitions } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { CoordinatorLink } from '../member/coordinator-link';
import type { ResolvedRetry } from '../runtime/backoff';
import { Emitter } from '../runtime/emitter';
import { Listenable } from '../runtime/listenable';
import type { Timers } from '../runtime/timers';
import { watchVisibility } from '../runtime/visibility-watch';
import { WakeSignal } from '../runtime/wake-signal';
import type { ClusterMetadata } from '../transport/cluster-metadata';
import type { PushMessage } from '../transport/node-connection';
import { LeaseBook } from './lease-book';
import { LeaseKeeper } from './lease-keeper';
import { ShareAcquirer } from './share-acquirer';
import { ShareCalls } from './share-calls';
import type { Acknowledgement, AcknowledgedEvent, Lease, ShareMemberEvents, ShareMemberState } from './share-events';
import { ShareHeartbeat } from './share-heartbeat';
import { resolveShareOptions, type ResolvedShareOptions, type ShareMemberOptions } from './share-options';
import { AckType } from './share-wire';

export interface ShareMemberRuntime {
  cluster: ClusterMetadata;
  timers: Timers;
  retry: ResolvedRetry;
  onStopped(member: ShareMember): void;
}

/**
 * One member of a share group (KIP-932): it joins with ShareGroupHeartbeat, leases offset ranges with
 * ShareAcquire, acknowledges them (piggy-backed on the next ShareAcquire, or with ShareAcknowledge),
 * renews the locks of what it still holds and reports what it lost. libs/client/README.md, "Share
 * groups", describes the behaviour.
 */
export class ShareMember extends Listenable<ShareMemberEvents> {
  readonly groupId: string;
  private readonly options: ResolvedShareOptions;
  protected readonly events: Emitter<ShareMemberEvents>;
  private readonly link: CoordinatorLink;
  private readonly heartbeat: ShareHeartbeat;
  private readonly book = new LeaseBook();
  private readonly keeper: LeaseKeeper;
  private readonly acquirer: ShareAcquirer;
  /** Fired whenever membership changes or the member stops: whoever waits for a lease looks again. */
  private readonly changed = new WakeSignal();
  private currentState: ShareMemberState = 'idle';
  private started: { resolve(): void; reject(error: CohortError): void } | null = null;
  private joinedOnce: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  private crashed: CohortError | null = null;
  private iterating = false;
  private releaseCluster: () => void = () => undefined;
  private unwatchVisibility: () => void = () => undefined;

  constructor(
    options: ShareMemberOptions,
    private readonly runtime: ShareMemberRuntime,
  ) {
    super();
    this.options = resolveShareOptions(options);
    this.groupId = this.options.groupId;
    this.events = new Emitter<ShareMemberEvents>((event, error) => {
      // A throwing 'error' listener is not reported to itself.
      if (event !== 'error')
        this.events.emit('error', CohortError.of('UNKNOWN_SERVER_ERROR', `a ${String(event)} listener threw`, error));
    });
    const { timers, retry } = runtime;
    const report = (error: CohortError): void => this.events.emit('error', error);
    this.link = new CoordinatorLink(
      this.groupId,
      runtime.cluster,
      timers,
      retry,
      this.options.requestTimeoutMs,
      {
        push: (message) => this.onPush(message),
        reconnected: () => this.heartbeat.now(true),
        activity: () => this.heartbeat.poke(),
        error: report,
        stopping: () => this.stopping !== null,
      },
      this.changed,
    );
    const calls = new ShareCalls(this.link);
    this.heartbeat = new ShareHeartbeat(this.options, calls, this.link, timers, retry, {
      joined: (memberId, memberEpoch) => {
        this.setState('stable');
        this.events.emit('joined', { memberId, memberEpoch });
        this.started?.resolve();
        this.started = null;
        this.keeper.schedule();
        this.changed.fire();
      },
      assigned: (partitions, memberEpoch) => {
        this.events.emit('assigned', { partitions, memberEpoch });
        this.changed.fire();
      },
      fenced: (reason) => this.fenced(reason),
      crash: (error) => this.crash(error),
      report,
    });
    const hooks = {
      memberId: () => this.heartbeat.memberId,
      acknowledged: (event: AcknowledgedEvent) => this.events.emit('acknowledged', event),
      fenced: (reason: string) => {
        this.heartbeat.rejoin();
        this.fenced(reason);
      },
      report,
    };
    this.acquirer = new ShareAcquirer(this.options, this.book, calls, timers, retry, this.changed, {
      ...hooks,
      assignmentStale: () => this.heartbeat.now(true),
      crash: (error) => this.crash(error),
      changed: () => this.keeper.schedule(),
    });
    this.keeper = new LeaseKeeper(this.book, calls, this.options, timers, {
      ...hooks,
      lockMs: () => this.acquirer.lockMs,
      joined: () => this.heartbeat.memberEpoch > 0,
      acquiring: () => this.acquirer.acquiring,
      lost: (leases, reason) => this.events.emit('lost', { leases, reason }),
    });
  }

  // ---- public surface (docs/protocol.md, share groups; libs/client/README.md) ----

  get state(): ShareMemberState {
    return this.currentState;
  }

  /** The member's id, chosen by the SDK (a UUID) and kept for the member's life. */
  get memberId(): string {
    return this.heartbeat.memberId;
  }

  get memberEpoch(): number {
    return this.heartbeat.memberEpoch;
  }

  /** The partitions this member may lease from (shared with the group's other members). */
  get assignment(): TopicPartitions[] {
    return this.heartbeat.assignment.map((tp) => ({ topic: tp.topic, partitions: [...tp.partitions] }));
  }

  /** Joins the share group; resolves once the coordinator has taken the member in. */
  start(): Promise<void> {
    if (this.crashed) return Promise.reject(this.crashed);
    if (this.stopping)
      return Promise.reject(CohortError.of('INVALID_REQUEST', 'the member was stopped; create a new one'));
    if (this.joinedOnce) return this.joinedOnce;
    this.joinedOnce = new Promise<void>((resolve, reject) => (this.started = { resolve, reject }));
    this.setState('joining');
    this.releaseCluster = this.runtime.cluster.retain();
    this.unwatchVisibility = watchVisibility(() => this.heartbeat.poke());
    this.heartbeat.start();
    return this.joinedOnce;
  }

  /**
   * The leases, one by one, for as long as the member runs (`for await`). In implicit mode, asking for
   * the next lease accepts what the previous one left unacknowledged; leaving the loop releases what
   * the current lease left unacknowledged, and any lease granted but not yet handed out.
   */
  async *leases(): AsyncGenerator<Lease, void, undefined> {
    if (this.iterating) throw CohortError.of('INVALID_REQUEST', 'leases() is already being iterated');
    this.iterating = true;
    const queue: Lease[] = [];
    let current: Lease | null = null;
    try {
      while (this.stopping === null && !this.crashed) {
        if (current && this.options.acknowledgement === 'implicit') this.book.settleRest(current, AckType.accept);
        current = null;
        const next = queue.shift();
        if (next === undefined) {
          if (await this.readyToLease()) queue.push(...(await this.acquirer.acquire()));
          continue;
        }
        if (!this.book.isHeld(next)) continue; // lost while it waited in the queue
        current = next;
        yield next;
      }
    } finally {
      this.iterating = false;
      if (this.stopping === null && !this.crashed) {
        if (current && this.options.acknowledgement === 'implicit') this.book.settleRest(current, AckType.release);
        for (const lease of queue) this.book.settleRest(lease, AckType.release);
        this.keeper.schedule();
        if (this.book.hasPending) void this.keeper.flush().catch(() => undefined);
      }
    }
  }

  /**
   * Acknowledges one offset or a range of a held lease: `accept` (done), `release` (lease it again,
   * to anyone), `reject` (never again: a dead letter), `gap` (no record there). Throws INVALID_REQUEST
   * when an offset is not held by this member (never leased to it, acknowledged already, or lost).
   */
  acknowledge(ack: Acknowledgement): void {
    const type = AckType[ack?.type as keyof typeof AckType];
    if (type === undefined || ack.type === ('renew' as never))
      throw CohortError.of('INVALID_REQUEST', `type must be accept, release, reject or gap (got ${String(ack?.type)})`);
    const [first, last] = 'offset' in ack ? [ack.offset, ack.offset] : [ack.firstOffset, ack.lastOffset];
    this.book.acknowledge(ack.topic, ack.partition, first, last, type);
    this.keeper.schedule();
  }

  /** Renews `lease`'s lock now (the SDK also does it by itself two thirds into each lock). */
  async renew(lease: Lease): Promise<void> {
    if (!this.book.isHeld(lease))
      throw CohortError.of('INVALID_REQUEST', `the lease ${lease.topic}-${lease.partition} is not held`);
    this.book.dueNow(lease);
    await this.keeper.flush();
    if (!this.book.isHeld(lease))
      throw CohortError.of('INVALID_REQUEST', `the lease ${lease.topic}-${lease.partition} was lost`);
  }

  /** Sends the acknowledgements made so far now; resolves with the coordinator's answer per partition. */
  commit(): Promise<AcknowledgedEvent[]> {
    return this.keeper.flush();
  }

  /** Sends what was acknowledged, releases what is still held, leaves the group (epoch -1) and stops. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  // ---- internals ----

  /** Waits until the member is joined with partitions to lease from; false when it stops instead. */
  private async readyToLease(): Promise<boolean> {
    if (this.currentState === 'idle') void this.start().catch(() => undefined);
    while (this.stopping === null && !this.crashed) {
      if (this.heartbeat.memberEpoch > 0 && this.heartbeat.assignment.some((tp) => tp.partitions.length > 0))
        return true;
      await this.changed.next();
    }
    return false;
  }

  private onPush(message: PushMessage): void {
    if (message.event === 'HeartbeatNow') this.heartbeat.now();
    else if (message.event === 'CoordinatorMoved') {
      this.link.markUnknown();
      this.heartbeat.now(true);
    }
  }

  /** The membership is gone: so is every lease; the heartbeat joins again with epoch 0. */
  private fenced(reason: string): void {
    if (this.currentState === 'stable') this.setState('joining');
    const lost = this.book.dropAll();
    if (lost.length > 0) this.events.emit('lost', { leases: lost, reason });
    this.keeper.schedule();
    this.changed.fire();
  }

  private async shutdown(): Promise<void> {
    if (this.currentState === 'idle' || this.currentState === 'stopped') return this.finish();
    this.setState('stopping');
    this.changed.fire();
    if (!this.crashed) {
      this.book.releaseAll();
      if (this.heartbeat.memberEpoch > 0) await this.keeper.flush().catch((e: unknown) => this.report(e));
      await this.heartbeat.leave().catch((e: unknown) => this.report(e));
    }
    this.finish();
  }

  private finish(): void {
    this.unwatchVisibility();
    this.releaseCluster();
    this.heartbeat.stop();
    this.keeper.stop();
    this.link.close();
    this.setState('stopped');
    this.changed.fire();
    this.started?.reject(this.crashed ?? CohortError.of('INVALID_REQUEST', 'the member was stopped before it joined'));
    this.started = null;
    this.runtime.onStopped(this);
  }

  private crash(error: CohortError): void {
    if (this.crashed || this.currentState === 'stopped') return;
    this.crashed = error;
    this.events.emit('crash', error);
    const lost = this.book.dropAll();
    if (lost.length > 0) this.events.emit('lost', { leases: lost, reason: `the member crashed: ${error.name}` });
    this.stopping ??= Promise.resolve().then(() => this.finish());
  }

  private report(error: unknown): void {
    this.events.emit('error', CohortError.from(error));
  }

  private setState(state: ShareMemberState): void {
    if (this.currentState === 'stopped') return;
    if (this.currentState === 'stopping' && state !== 'stopped') return;
    this.currentState = state;
  }
}
