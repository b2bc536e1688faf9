import type { RequestEventName } from '@cohort/protocol';
import { FakeCoordinator } from './fake-coordinator';
import type { FakeTimers } from './fake-timers';

type Ack = {
  topic: string;
  partition: number;
  batches: { firstOffset: number; lastOffset: number; acknowledgeTypes: number[] }[];
};
interface OffsetState {
  state: 'available' | 'acquired' | 'acknowledged' | 'archived';
  count: number;
  owner: string;
  deadline: number;
}

/**
 * A share group behind the FakeCoordinator, for the share member's unit tests: membership
 * (ShareGroupHeartbeat: epoch 1 on joining, every partition assigned, -1 leaves and gives back the
 * member's leases), one share partition per partition of its topic (ShareAcquire leasing available
 * offsets below the appended end in ranges of `batchSize`, locks on the fake clock, piggy-backed
 * acknowledgements; ShareAcknowledge with RENEW) and long polls held until offsets arrive.
 */
export class FakeShareGroup {
  lockMs = 30_000;
  heartbeatIntervalMs = 5000;
  deliveryLimit = 5;
  readonly members = new Map<string, number>();
  private readonly ends = new Map<number, number>();
  private readonly offsets = new Map<string, OffsetState>();

  constructor(
    readonly server: FakeCoordinator,
    private readonly timers: FakeTimers,
    readonly topic = 'jobs',
    readonly partitions = 1,
  ) {
    for (let p = 0; p < partitions; p++) this.ends.set(p, 0);
    const on = (event: string, handler: (payload: any) => unknown): void =>
      server.always(event as RequestEventName, handler);
    on('ShareGroupHeartbeat', (payload) => this.heartbeat(payload));
    on('ShareAcquire', (payload) => this.acquire(payload, true));
    on('ShareAcknowledge', (payload) => this.acknowledge(payload));
  }

  /** Producers appended `count` offsets to `partition`: held ShareAcquires are answered. */
  append(count: number, partition = 0): void {
    this.ends.set(partition, (this.ends.get(partition) ?? 0) + count);
    for (const held of [...this.server.held].filter((h) => h.event === 'ShareAcquire')) {
      const answer = this.acquire(held.payload, false);
      if (answer === FakeCoordinator.HOLD) continue;
      this.server.held.splice(this.server.held.indexOf(held), 1);
      held.ack(answer);
    }
  }

  stateOf(offset: number, partition = 0): OffsetState | undefined {
    this.expire();
    return this.offsets.get(`${partition}:${offset}`);
  }

  heartbeat(payload: any): unknown {
    const base = { heartbeatIntervalMs: this.heartbeatIntervalMs, errorCode: 0 };
    if (payload.memberEpoch === -1) {
      this.members.delete(payload.memberId);
      this.releaseMember(payload.memberId);
      return { ...base, memberId: payload.memberId, memberEpoch: -1, assignment: null };
    }
    if (payload.memberEpoch === 0) this.members.set(payload.memberId, 1);
    else if (!this.members.has(payload.memberId))
      return {
        ...base,
        errorCode: 25,
        errorName: 'UNKNOWN_MEMBER_ID',
        memberId: null,
        memberEpoch: 0,
        assignment: null,
      };
    const full = payload.memberEpoch === 0 || payload.subscribedTopicNames != null;
    const all = Array.from({ length: this.partitions }, (_, i) => i);
    return {
      ...base,
      memberId: payload.memberId,
      memberEpoch: this.members.get(payload.memberId),
      assignment: full ? { topicPartitions: [{ topic: this.topic, partitions: all }] } : null,
    };
  }

  acquire(payload: any, mayHold: boolean): unknown {
    if (!this.members.has(payload.memberId)) return { errorCode: 25, errorName: 'UNKNOWN_MEMBER_ID', partitions: [] };
    const results = new Map<number, { errorCode: number; acknowledgeErrorCode: number; leases: unknown[] }>();
    const entry = (p: number) => {
      if (!results.has(p)) results.set(p, { errorCode: 0, acknowledgeErrorCode: 0, leases: [] });
      return results.get(p)!;
    };
    // Piggy-backed acknowledgements are applied once, when the request arrives.
    if (mayHold)
      for (const ack of payload.acknowledgements ?? [])
        entry(ack.partition).acknowledgeErrorCode = this.apply(payload.memberId, ack);
    this.expire();
    let budget = payload.maxRecords as number;
    const batchSize = (payload.batchSize as number | undefined) ?? budget;
    for (let p = 0; p < this.partitions && budget > 0; p++) {
      let run: { firstOffset: number; lastOffset: number; deliveryCount: number } | null = null;
      for (let offset = 0; offset < this.ends.get(p)! && budget > 0; offset++) {
        const key = `${p}:${offset}`;
        const state = this.offsets.get(key) ?? { state: 'available', count: 0, owner: '', deadline: 0 };
        if (state.state !== 'available') continue;
        this.offsets.set(key, {
          state: 'acquired',
          count: state.count + 1,
          owner: payload.memberId,
          deadline: this.timers.now() + this.lockMs,
        });
        budget--;
        const fits = run && run.lastOffset === offset - 1 && run.deliveryCount === state.count + 1;
        if (fits && run!.lastOffset - run!.firstOffset + 1 < batchSize) run!.lastOffset = offset;
        else entry(p).leases.push((run = { firstOffset: offset, lastOffset: offset, deliveryCount: state.count + 1 }));
      }
    }
    const leased = [...results.values()].some((r) => r.leases.length > 0);
    if (!leased && mayHold && (payload.maxWaitMs ?? 0) > 0 && results.size === 0) return FakeCoordinator.HOLD;
    return {
      errorCode: 0,
      acquisitionLockTimeoutMs: this.lockMs,
      partitions: [...results].map(([partition, r]) => ({ topic: this.topic, partition, ...r })),
    };
  }

  acknowledge(payload: any): unknown {
    if (!this.members.has(payload.memberId)) return { errorCode: 25, errorName: 'UNKNOWN_MEMBER_ID', partitions: [] };
    this.expire();
    return {
      errorCode: 0,
      partitions: (payload.acknowledgements as Ack[]).map((ack) => ({
        topic: ack.topic,
        partition: ack.partition,
        errorCode: this.apply(payload.memberId, ack),
      })),
    };
  }

  /** Applies one partition's acknowledgements, all or nothing: 42 when an offset is not held by `memberId`. */
  private apply(memberId: string, ack: Ack): number {
    const changes: [string, OffsetState][] = [];
    for (const batch of ack.batches)
      for (let offset = batch.firstOffset; offset <= batch.lastOffset; offset++) {
        const key = `${ack.partition}:${offset}`;
        const state = this.offsets.get(key);
        if (!state || state.state !== 'acquired' || state.owner !== memberId || state.deadline <= this.timers.now())
          return 42;
        const type =
          batch.acknowledgeTypes.length === 1
            ? batch.acknowledgeTypes[0]
            : batch.acknowledgeTypes[offset - batch.firstOffset];
        changes.push([key, this.after(state, type)]);
      }
    for (const [key, state] of changes) this.offsets.set(key, state);
    return 0;
  }

  private after(state: OffsetState, type: number): OffsetState {
    if (type === 4) return { ...state, deadline: this.timers.now() + this.lockMs };
    if (type === 1) return { ...state, state: 'acknowledged', owner: '' };
    if (type === 2) return { ...state, state: state.count >= this.deliveryLimit ? 'archived' : 'available', owner: '' };
    return { ...state, state: 'archived', owner: '' };
  }

  private releaseMember(memberId: string): void {
    for (const [key, state] of this.offsets)
      if (state.state === 'acquired' && state.owner === memberId) this.offsets.set(key, this.after(state, 2));
  }

  private expire(): void {
    for (const [key, state] of this.offsets)
      if (state.state === 'acquired' && state.deadline <= this.timers.now())
        this.offsets.set(key, this.after(state, 2));
  }
}
