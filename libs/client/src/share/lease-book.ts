import { CohortError } from '../errors/cohort-error';
import type { Lease } from './share-events';
import { AckType, type AckTypeId, type PartitionAcks, type WireLease } from './share-wire';

/** A lease this member holds, with each offset's local state: 0 while held, else the type it was acknowledged with + 1. */
interface Held {
  readonly lease: Lease;
  readonly key: string;
  readonly states: Uint8Array;
  /** Offsets still held (not acknowledged). */
  open: number;
  /** When the SDK renews the lock (two thirds of the way), unless a renewal is out. */
  renewAt: number;
  renewing: boolean;
}

/** An acknowledgement made locally and not yet answered by the coordinator. */
export interface PendingAck {
  topic: string;
  partition: number;
  firstOffset: number;
  lastOffset: number;
  type: AckTypeId;
  /** It must reach the coordinator before this (the time its lease would have been renewed). */
  flushBy: number;
}

const keyOf = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/** The share of a lock's duration after which the SDK renews a held lease (before it can expire). */
const RENEW_AT = 2 / 3;

/**
 * What a share member holds: its leases, which of their offsets the application acknowledged, and
 * the acknowledgements waiting to be sent (piggy-backed on the next ShareAcquire, or sent on their own
 * before their lease's lock would run out). Pure bookkeeping on the member's clock: no I/O here.
 */
export class LeaseBook {
  private readonly held = new Map<string, Held[]>();
  private pending: PendingAck[] = [];

  /** Takes a lease the coordinator granted to a ShareAcquire sent at `sentAt` (its lock counts from then, conservatively). */
  add(topic: string, partition: number, wire: WireLease, sentAt: number, lockMs: number): Lease {
    const size = wire.lastOffset - wire.firstOffset + 1;
    const lease: Lease = {
      topic,
      partition,
      firstOffset: wire.firstOffset,
      lastOffset: wire.lastOffset,
      deliveryCount: wire.deliveryCount,
      lockExpiresAt: sentAt + lockMs,
    };
    const key = keyOf(topic, partition);
    const held: Held = {
      lease,
      key,
      states: new Uint8Array(size),
      open: size,
      renewAt: sentAt + Math.floor(lockMs * RENEW_AT),
      renewing: false,
    };
    const list = this.held.get(key) ?? [];
    list.push(held);
    list.sort((a, b) => a.lease.firstOffset - b.lease.firstOffset);
    this.held.set(key, list);
    return lease;
  }

  /** Whether any offset of `lease` is still held unacknowledged. */
  isHeld(lease: Lease): boolean {
    return this.find(lease) !== undefined;
  }

  /** How many offsets are held unacknowledged, over every lease. */
  get heldOffsets(): number {
    let count = 0;
    for (const list of this.held.values()) for (const h of list) count += h.open;
    return count;
  }

  get hasPending(): boolean {
    return this.pending.length > 0;
  }

  /**
   * Acknowledges `firstOffset`..`lastOffset` locally. Every offset must be held by this member and not
   * acknowledged yet; otherwise nothing changes and it throws INVALID_REQUEST (42, the coordinator's
   * answer to an acknowledgement of offsets the member does not hold).
   */
  acknowledge(topic: string, partition: number, firstOffset: number, lastOffset: number, type: AckTypeId): void {
    if (!Number.isSafeInteger(firstOffset) || !Number.isSafeInteger(lastOffset) || firstOffset > lastOffset)
      throw CohortError.of('INVALID_REQUEST', `bad offset range ${firstOffset}..${lastOffset}`);
    const touched: [Held, number, number][] = [];
    let covered = 0;
    for (const h of this.held.get(keyOf(topic, partition)) ?? []) {
      const lo = Math.max(firstOffset, h.lease.firstOffset);
      const hi = Math.min(lastOffset, h.lease.lastOffset);
      if (lo > hi) continue;
      for (let offset = lo; offset <= hi; offset++)
        if (h.states[offset - h.lease.firstOffset] !== 0)
          throw notHeld(topic, partition, offset, 'already acknowledged');
      touched.push([h, lo, hi]);
      covered += hi - lo + 1;
    }
    if (covered !== lastOffset - firstOffset + 1)
      throw notHeld(topic, partition, firstOffset, 'not held by this member (never leased to it, or lost)');
    let flushBy = Number.POSITIVE_INFINITY;
    for (const [h, lo, hi] of touched) {
      h.states.fill(type + 1, lo - h.lease.firstOffset, hi - h.lease.firstOffset + 1);
      h.open -= hi - lo + 1;
      flushBy = Math.min(flushBy, h.renewAt);
      if (h.open === 0) this.remove(h);
    }
    this.pending.push({ topic, partition, firstOffset, lastOffset, type, flushBy });
  }

  /** Acknowledges every offset of `lease` still held with `type`; returns how many. */
  settleRest(lease: Lease, type: AckTypeId): number {
    const h = this.find(lease);
    if (!h) return 0;
    const settled = h.open;
    for (const [first, last] of openRuns(h)) this.acknowledge(lease.topic, lease.partition, first, last, type);
    return settled;
  }

  /** Releases every offset still held (the member stops): they go back to the group at once. */
  releaseAll(): void {
    for (const list of [...this.held.values()]) for (const h of [...list]) this.settleRest(h.lease, AckType.release);
  }

  /** The acknowledgements to send now, grouped per partition in ascending runs; they leave the pending list. */
  takePending(): { acks: PartitionAcks[]; taken: PendingAck[] } {
    const taken = this.pending;
    this.pending = [];
    return { acks: toWire(taken), taken };
  }

  /** A request carrying `taken` got no answer: send them again with the next one. */
  requeue(taken: PendingAck[]): void {
    this.pending = [...taken, ...this.pending];
  }

  /** Whether a pending acknowledgement must leave by now (its lease's renewal time). */
  flushDue(now: number): boolean {
    return this.pending.some((p) => p.flushBy <= now);
  }

  /** Leases whose renewal is due and not already out; they are marked as being renewed. */
  takeRenewals(now: number): { acks: PartitionAcks[]; leases: Lease[] } {
    const due: Held[] = [];
    for (const list of this.held.values())
      for (const h of list) if (!h.renewing && h.renewAt <= now && h.lease.lockExpiresAt > now) due.push(h);
    for (const h of due) h.renewing = true;
    const runs: PendingAck[] = due.flatMap((h) =>
      openRuns(h).map(([firstOffset, lastOffset]) => ({
        topic: h.lease.topic,
        partition: h.lease.partition,
        firstOffset,
        lastOffset,
        type: AckType.renew,
        flushBy: 0,
      })),
    );
    return { acks: toWire(runs), leases: due.map((h) => h.lease) };
  }

  /** The application asked to renew `lease` now: the next send carries its renewal. */
  dueNow(lease: Lease): void {
    const h = this.find(lease);
    if (h) h.renewAt = Number.NEGATIVE_INFINITY;
  }

  /** The renewal of `lease` sent at `sentAt` was answered: its lock runs `lockMs` from then. */
  renewed(lease: Lease, sentAt: number, lockMs: number): void {
    const h = this.find(lease);
    if (!h) return;
    h.renewing = false;
    h.lease.lockExpiresAt = Math.max(h.lease.lockExpiresAt, sentAt + lockMs);
    h.renewAt = sentAt + Math.floor(lockMs * RENEW_AT);
  }

  /** The renewal of `lease` got no answer: try again at the next chance (until the lock runs out). */
  renewalUnanswered(lease: Lease): void {
    const h = this.find(lease);
    if (h) h.renewing = false;
  }

  /** Forgets the held leases whose locks ran out by `now`; returns what was still unacknowledged of them. */
  expire(now: number): Lease[] {
    return this.drop((h) => h.lease.lockExpiresAt <= now);
  }

  /** Forgets every held lease (the membership is gone); returns what was still unacknowledged. */
  dropAll(): Lease[] {
    return this.drop(() => true);
  }

  /** Forgets the given leases (the coordinator said this member no longer holds them). */
  dropLeases(leases: Lease[]): Lease[] {
    const set = new Set(leases);
    return this.drop((h) => set.has(h.lease));
  }

  /** The next moment something is due: a renewal, a lock running out, or a pending acknowledgement's deadline. */
  nextDue(): number | null {
    let next = Number.POSITIVE_INFINITY;
    for (const list of this.held.values())
      for (const h of list) next = Math.min(next, h.renewing ? h.lease.lockExpiresAt : h.renewAt);
    for (const p of this.pending) next = Math.min(next, p.flushBy);
    return Number.isFinite(next) ? next : null;
  }

  private find(lease: Lease): Held | undefined {
    return this.held.get(keyOf(lease.topic, lease.partition))?.find((h) => h.lease === lease);
  }

  private remove(h: Held): void {
    const list = (this.held.get(h.key) ?? []).filter((x) => x !== h);
    if (list.length === 0) this.held.delete(h.key);
    else this.held.set(h.key, list);
  }

  private drop(which: (h: Held) => boolean): Lease[] {
    const lost: Lease[] = [];
    for (const list of [...this.held.values()])
      for (const h of list) {
        if (!which(h)) continue;
        this.remove(h);
        const runs = openRuns(h);
        if (runs.length === 1 && h.open === h.states.length) lost.push(h.lease);
        else for (const [firstOffset, lastOffset] of runs) lost.push({ ...h.lease, firstOffset, lastOffset });
      }
    return lost;
  }
}

/** The runs of offsets of `h` still held, ascending. */
function openRuns(h: Held): [number, number][] {
  const runs: [number, number][] = [];
  const base = h.lease.firstOffset;
  for (let i = 0; i < h.states.length; i++) {
    if (h.states[i] !== 0) continue;
    const last = runs.at(-1);
    if (last && last[1] === base + i - 1) last[1] = base + i;
    else runs.push([base + i, base + i]);
  }
  return runs;
}

/** Acknowledgements as the wire wants them: per partition, ascending, adjacent runs of one type merged. */
export function toWire(acks: PendingAck[]): PartitionAcks[] {
  const byPartition = new Map<string, PartitionAcks>();
  const sorted = [...acks].sort(
    (a, b) =>
      a.topic.localeCompare(b.topic) ||
      a.partition - b.partition ||
      a.firstOffset - b.firstOffset ||
      a.lastOffset - b.lastOffset,
  );
  for (const ack of sorted) {
    const key = keyOf(ack.topic, ack.partition);
    let entry = byPartition.get(key);
    if (!entry) byPartition.set(key, (entry = { topic: ack.topic, partition: ack.partition, batches: [] }));
    const last = entry.batches.at(-1);
    if (last && last.lastOffset + 1 === ack.firstOffset && last.acknowledgeTypes[0] === ack.type)
      last.lastOffset = ack.lastOffset;
    else entry.batches.push({ firstOffset: ack.firstOffset, lastOffset: ack.lastOffset, acknowledgeTypes: [ack.type] });
  }
  return [...byPartition.values()];
}

function notHeld(topic: string, partition: number, offset: number, why: string): CohortError {
  return CohortError.of('INVALID_REQUEST', `cannot acknowledge ${topic}-${partition} offset ${offset}: ${why}`);
}
