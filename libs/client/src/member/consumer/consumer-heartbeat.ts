import type { ConsumerGroupHeartbeatResponse } from '@cohort/protocol';
import { CohortError } from '../../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../../runtime/backoff';
import type { Timers } from '../../runtime/timers';
import type { CoordinatorLink } from '../coordinator-link';
import { HeartbeatLoop } from '../heartbeat-loop';
import type { PartitionSet } from '../partition-set';
import type { ResolvedConsumerMemberOptions } from './consumer-member-options';
import { CONSUMER_REQUEST_TIMEOUT_MS } from './consumer-member-wiring';
import { consumerHeartbeatAction, failedHeartbeat, type ConsumerHeartbeatAction } from './heartbeat-actions';
import { HeartbeatFields } from './heartbeat-fields';

export interface ConsumerHeartbeatHooks {
  /** Whether the member heartbeats now (joining, reconciling or stable). */
  active(): boolean;
  memberId(): string;
  epoch(): number;
  owned(): PartitionSet;
  /** Which membership the member is in: an answer about another one is ignored. */
  incarnation(): number;
  /** A heartbeat carrying the owned partitions went out: the reconciliation it acknowledges is acknowledged. */
  acknowledged(): void;
  answered(response: ConsumerGroupHeartbeatResponse): void;
  fenced(reason: string): void;
  crash(error: CohortError): void;
  report(error: CohortError): void;
}

/** Until the coordinator names the interval in its first answer (its default, GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS). */
const FIRST_INTERVAL_MS = 5000;

/**
 * A consumer-protocol member's heartbeat (Kafka's ConsumerHeartbeatRequestManager): on its own timer at
 * the interval the coordinator names in every answer, at once when asked (a `HeartbeatNow` push, an
 * acknowledgement, a new connection), with back-off after failures — each followed by a full request —
 * and answers about a membership the member has left ignored.
 */
export class ConsumerHeartbeat {
  private readonly loop: HeartbeatLoop;
  private readonly backoff: Backoff;
  private readonly fields: HeartbeatFields;

  constructor(
    timers: Timers,
    retry: ResolvedRetry,
    options: ResolvedConsumerMemberOptions,
    private readonly link: CoordinatorLink,
    private readonly hooks: ConsumerHeartbeatHooks,
  ) {
    this.backoff = new Backoff(retry, timers);
    this.fields = new HeartbeatFields(options);
    this.loop = new HeartbeatLoop(timers, FIRST_INTERVAL_MS, () => this.beat());
  }

  /** Starts beating, the first beat at once. */
  start(): void {
    this.loop.start();
    this.loop.now();
  }

  stop(): void {
    this.loop.stop();
  }

  /** Beat as soon as possible; `full`: with every field (a new connection or coordinator, a rejoin). */
  now(full: boolean): void {
    if (full) this.fields.reset();
    this.loop.now();
  }

  /** Beat now if one is overdue (a throttled tab got a task). */
  poke(): void {
    this.loop.poke();
  }

  /**
   * The leave heartbeat: epoch -1, or -2 for a static member away for now (its partitions kept for
   * its session). Sent once, as Kafka sends it; resolves whatever the outcome, failures reported.
   */
  leave(epoch: -1 | -2): Promise<void> {
    this.loop.stop();
    const request = this.fields.leave(this.hooks.memberId(), epoch);
    return this.link.request('ConsumerGroupHeartbeat', request, CONSUMER_REQUEST_TIMEOUT_MS).then(
      (response) => {
        if (response.errorCode !== 0) this.hooks.report(CohortError.fromResponse(response as never));
      },
      (error: unknown) => this.hooks.report(CohortError.from(error)),
    );
  }

  private async beat(): Promise<number | void> {
    if (!this.hooks.active()) return;
    const incarnation = this.hooks.incarnation();
    const { request, commit } = this.fields.build(this.hooks.memberId(), this.hooks.epoch(), this.hooks.owned());
    let action: ConsumerHeartbeatAction;
    try {
      const response = await this.link.request('ConsumerGroupHeartbeat', request, CONSUMER_REQUEST_TIMEOUT_MS, {
        onSent: () => {
          commit();
          if (request.topicPartitions !== undefined) this.hooks.acknowledged();
        },
      });
      action = consumerHeartbeatAction(response);
    } catch (error) {
      action = failedHeartbeat(error);
    }
    if (incarnation !== this.hooks.incarnation() || !this.hooks.active()) return;
    switch (action.kind) {
      case 'ok':
        this.backoff.reset();
        if (action.response.heartbeatIntervalMs > 0) this.loop.retime(action.response.heartbeatIntervalMs);
        return this.hooks.answered(action.response);
      case 'fenced':
        this.fields.reset();
        return this.hooks.fenced(action.reason);
      case 'rediscover':
      case 'retry':
        // Kafka resets the sent fields after any failure: the next request is a full one.
        this.fields.reset();
        this.hooks.report(action.error);
        return this.backoff.next();
      case 'fatal':
        return this.hooks.crash(action.error);
    }
  }
}
