import { randomUUID } from 'node:crypto';
import { io, type Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { firstConnect } from './first-connect';

/**
 * A consumer-protocol (KIP-848) member that does only what Kafka's consumer does in such a group, for
 * the benchmarks (there is no SDK support yet): it joins with epoch 0, heartbeats every interval the
 * coordinator gives, and reconciles as the Java consumer's MembershipManager does — a new assignment is
 * taken at once and acknowledged by a heartbeat sent at once with the partitions it now owns. With
 * `followPushes`, a `HeartbeatNow` push makes it heartbeat at once; without, it waits for its interval
 * (what a Kafka member does). It keeps no history (thousands run in one process).
 */
export interface ConsumerMemberOptions {
  topic: string;
  followPushes: boolean;
  rebalanceTimeoutMs: number;
}

const REQUEST_TIMEOUT_MS = 30_000;
/** The Java consumer's retry.backoff.ms, before a heartbeat after an error. */
const RETRY_BACKOFF_MS = 100;

const key = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

export class ConsumerMember {
  readonly memberId = randomUUID();
  epoch = 0;
  /** The partitions this member owns, as keys of `key()`. */
  owned = new Set<string>();
  /** Assignments received that took away a partition this member owned (a revocation). */
  revocations = 0;
  /** Error codes received (code → count), and heartbeats that timed out. */
  readonly errors = new Map<number, number>();
  timeouts = 0;
  /** Heartbeats sent, and HeartbeatNow pushes received (what forming costs in round trips). */
  heartbeats = 0;
  pushes = 0;
  /** performance.now() when what this member owns last changed (0: never). */
  ownedChangedAt = 0;
  /** Called after every answer that changed the epoch or the assignment. */
  onChange: (() => void) | null = null;
  /**
   * How long the member takes to act on a push or a new assignment before it heartbeats (a Kafka
   * consumer runs its rebalance listener, often committing offsets, before it acknowledges a revocation);
   * 0 acts at once.
   */
  actDelayMs = 0;
  private intervalMs = 5000;
  private timer: NodeJS.Timeout | null = null;
  private inFlight = false;
  /** A push or a new assignment came while a heartbeat was in flight: send another once it is answered. */
  private again = false;
  private running = false;
  private joined = false;
  /**
   * The next heartbeat carries every field (Kafka's HeartbeatState reset after a failed or timed-out
   * request): the coordinator then sends the assignment whether or not it changed, so an answer that
   * carried one and was lost is not lost for good.
   */
  private full = false;

  private constructor(
    private readonly socket: Socket,
    private readonly groupId: string,
    private readonly options: ConsumerMemberOptions,
  ) {
    socket.on('HeartbeatNow', (push: P.HeartbeatNowPush) => {
      if (push.groupId !== this.groupId) return;
      this.pushes++;
      if (this.options.followPushes) this.act();
    });
  }

  static connect(url: string, groupId: string, options: ConsumerMemberOptions): Promise<ConsumerMember> {
    const socket = io(url, {
      transports: ['websocket'],
      auth: { clientId: 'bench-consumer' },
      reconnectionDelay: 200,
      reconnectionDelayMax: 1000,
      forceNew: true,
    });
    return firstConnect(socket).then(() => new ConsumerMember(socket, groupId, options));
  }

  /** Joins (epoch 0) and heartbeats from then on. */
  start(): void {
    this.running = true;
    this.heartbeatNow();
  }

  /** Leaves the group (epoch -1) and closes the socket. */
  async leave(): Promise<void> {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    if (this.joined)
      await this.request({ groupId: this.groupId, memberId: this.memberId, memberEpoch: -1 }).catch(() => undefined);
    this.socket.disconnect();
  }

  /** One heartbeat with nothing changed (Kafka's steady heartbeat: every optional field left out), answered. */
  steadyHeartbeat(): Promise<P.ConsumerGroupHeartbeatResponse> {
    return this.request({ groupId: this.groupId, memberId: this.memberId, memberEpoch: this.epoch });
  }

  /** How many partitions of `topic` this member owns. */
  holds(): number {
    return this.owned.size;
  }

  /** Stops the heartbeats on the interval (a measurement then drives them with steadyHeartbeat). */
  pause(): void {
    this.running = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private heartbeatNow(): void {
    if (!this.running) return;
    if (this.inFlight) {
      this.again = true;
      return;
    }
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    void this.heartbeat();
  }

  private async heartbeat(): Promise<void> {
    this.inFlight = true;
    this.again = false;
    this.heartbeats++;
    let delayMs = this.intervalMs;
    try {
      const request: P.ConsumerGroupHeartbeatRequest = !this.joined
        ? {
            groupId: this.groupId,
            memberId: this.memberId,
            memberEpoch: 0,
            rebalanceTimeoutMs: this.options.rebalanceTimeoutMs,
            subscribedTopicNames: [this.options.topic],
            topicPartitions: [],
          }
        : this.full
          ? {
              groupId: this.groupId,
              memberId: this.memberId,
              memberEpoch: this.epoch,
              rebalanceTimeoutMs: this.options.rebalanceTimeoutMs,
              subscribedTopicNames: [this.options.topic],
              topicPartitions: this.ownedList(),
            }
          : {
              groupId: this.groupId,
              memberId: this.memberId,
              memberEpoch: this.epoch,
              topicPartitions: this.ownedList(),
            };
      const answer = await this.request(request);
      if (answer.errorCode !== 0) {
        this.errors.set(answer.errorCode, (this.errors.get(answer.errorCode) ?? 0) + 1);
        // Fenced or unknown (110 FENCED_MEMBER_EPOCH, 25 UNKNOWN_MEMBER_ID): the Java consumer gives up its partitions and rejoins.
        if (answer.errorCode === 110 || answer.errorCode === 25) {
          this.joined = false;
          this.epoch = 0;
          this.owned.clear();
        }
        this.full = true;
        delayMs = RETRY_BACKOFF_MS;
      } else {
        this.joined = true;
        this.full = false;
        this.intervalMs = answer.heartbeatIntervalMs;
        const changed = this.reconcile(answer);
        if (changed) this.again = true; // acknowledge the new assignment at once, as Kafka's consumer does
        if (changed || answer.memberEpoch !== this.epoch) {
          this.epoch = answer.memberEpoch;
          this.onChange?.();
        }
      }
    } catch {
      this.timeouts++;
      this.full = true;
    } finally {
      this.inFlight = false;
    }
    if (!this.running) return;
    if (this.again) this.act();
    else this.timer = setTimeout(() => void this.heartbeat(), delayMs);
  }

  /** A push or a new assignment: a heartbeat now, or after `actDelayMs`. */
  private act(): void {
    if (this.actDelayMs <= 0) this.heartbeatNow();
    else setTimeout(() => this.heartbeatNow(), this.actDelayMs);
  }

  /** Takes the answer's assignment (if any); true when what the member owns changed. */
  private reconcile(answer: P.ConsumerGroupHeartbeatResponse): boolean {
    if (!answer.assignment) return false;
    const next = new Set<string>();
    for (const tp of answer.assignment.topicPartitions) for (const p of tp.partitions) next.add(key(tp.topic, p));
    let lost = false;
    for (const partition of this.owned) if (!next.has(partition)) lost = true;
    if (lost) this.revocations++;
    const changed = lost || next.size !== this.owned.size;
    this.owned = next;
    if (changed) this.ownedChangedAt = performance.now();
    return changed;
  }

  private ownedList(): P.TopicPartitions[] {
    const byTopic = new Map<string, number[]>();
    for (const owned of this.owned) {
      const [topic, partition] = owned.split('\u0000');
      const list = byTopic.get(topic) ?? [];
      list.push(Number(partition));
      byTopic.set(topic, list);
    }
    return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
  }

  private request(payload: P.ConsumerGroupHeartbeatRequest): Promise<P.ConsumerGroupHeartbeatResponse> {
    return this.socket
      .timeout(REQUEST_TIMEOUT_MS)
      .emitWithAck('ConsumerGroupHeartbeat', payload) as Promise<P.ConsumerGroupHeartbeatResponse>;
  }
}
