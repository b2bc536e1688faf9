import fc from 'fast-check';
import { type AcquiredRange, type ShareChange, SharePartition, type SharePartitionLimits } from './share-partition';
import { RecordState } from './share-partition-runs';
import type { SharePartitionSnapshot } from './share-state-records';
import { partitionFromSnapshot, snapshotOf } from './share-state-snapshot';

/**
 * Random histories of one share partition (leases, acknowledgements of every type, writes that commit
 * or fail, each carrying the delivery horizon, leases under a committed horizon handed out without a
 * write, lock expiry, members leaving, end-offset reports, restarts from what was written), checked
 * against the invariants an offsets-only share coordinator must keep: each offset held by at most one
 * member and only below the reported end and within the record-lock window; an offset whose
 * acknowledgement was answered with success (accept, reject, gap) never leased again, restarts included;
 * delivery counts of successive leases of an offset strictly increasing, restarts included; no count
 * above the limit; SPSO never moving back; a refused acknowledgement changing nothing.
 */
const LIMITS: SharePartitionLimits = { deliveryCountLimit: 3, maxRecordLocks: 12, lockDurationMs: 100 };
const MEMBERS = ['a', 'b', 'c'];

type Step =
  | { kind: 'acquire'; member: number; budget: number; batch: number }
  | { kind: 'ack'; member: number; pick: number; span: number; type: number; perOffset: number[] | null }
  | { kind: 'settle'; pick: number; ok: boolean }
  | { kind: 'advance'; ms: number }
  | { kind: 'leave'; member: number }
  | { kind: 'report'; grow: number }
  | { kind: 'restart' };

const member = fc.integer({ min: 0, max: MEMBERS.length - 1 });
const step: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('acquire' as const),
      member,
      budget: fc.integer({ min: 1, max: 6 }),
      batch: fc.integer({ min: 1, max: 4 }),
    }),
  },
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('ack' as const),
      member,
      pick: fc.nat(),
      span: fc.integer({ min: 1, max: 4 }),
      type: fc.integer({ min: 0, max: 4 }),
      perOffset: fc.option(fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 4, maxLength: 4 }), { nil: null }),
    }),
  },
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('settle' as const), pick: fc.nat(), ok: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 120 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('leave' as const), member }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('report' as const), grow: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

interface Pending {
  change: ShareChange;
  /** What the write carries: the partition as it was when the write was made. */
  record: SharePartitionSnapshot;
  /** The delivery horizon the record holds. */
  horizon: number;
  /** Offsets this write makes done (accept, reject, gap), answered as such if it commits. */
  done: number[];
  /** The leases it carries, handed out (answered) if it commits. */
  leases: AcquiredRange[];
}

function run(steps: Step[]): void {
  let now = 0;
  let sp = new SharePartition(0, 0);
  let reportedEnd = 4;
  sp.reportEnd(reportedEnd);
  let written: SharePartitionSnapshot | undefined;
  let pending: Pending[] = [];
  /** Offsets whose done-making acknowledgement was answered with success. */
  const answeredDone = new Set<number>();
  /** The highest delivery count each offset was handed out with (a lease whose write committed). */
  const delivered = new Map<number, number>();
  let lastStart = 0;
  let lastEpoch = 0;

  /** The record a write made now carries, with its delivery horizon (as the partition manager writes it). */
  const recordNow = () => {
    const horizon = sp.horizon.toWrite(sp.endOffset, sp.reportedEnd, LIMITS.maxRecordLocks);
    return { record: snapshotOf(sp, horizon), horizon };
  };
  const heldBy = (offset: number) =>
    sp.runs.find((r) => r.first <= offset && offset <= r.last && r.state === RecordState.ACQUIRED)?.lease?.memberId;

  for (const s of steps) {
    switch (s.kind) {
      case 'acquire': {
        const { leases, change } = sp.acquire(MEMBERS[s.member], s.budget, s.batch, now, LIMITS);
        if (leases.length === 0) break;
        if (change) pending.push({ change, ...recordNow(), done: [], leases });
        for (const lease of leases) {
          expect(lease.lastOffset - lease.firstOffset + 1).toBeLessThanOrEqual(s.batch);
          expect(lease.deliveryCount).toBeLessThanOrEqual(LIMITS.deliveryCountLimit);
          for (let o = lease.firstOffset; o <= lease.lastOffset; o++) {
            expect(answeredDone.has(o)).toBe(false);
            expect(lease.deliveryCount).toBeGreaterThan(delivered.get(o) ?? 0);
            expect(o).toBeLessThan(reportedEnd);
            // Without a write, only new offsets under the committed horizon: handed out at once.
            if (!change) {
              expect(o).toBeLessThan(sp.horizon.committed);
              delivered.set(o, lease.deliveryCount);
            }
          }
        }
        break;
      }
      case 'ack': {
        const held = sp.runs.filter((r) => r.state === RecordState.ACQUIRED);
        const target = held.length > 0 ? held[s.pick % held.length] : undefined;
        const first = target ? target.first : sp.startOffset + (s.pick % 6);
        const last = first + s.span - 1;
        const types = s.perOffset ? s.perOffset.slice(0, s.span) : [s.type];
        const before = JSON.stringify(snapshotOf(sp));
        const result = sp.acknowledge(
          MEMBERS[s.member],
          [{ firstOffset: first, lastOffset: last, acknowledgeTypes: types }],
          now,
          LIMITS,
        );
        if (result.errorCode !== 0) {
          expect(JSON.stringify(snapshotOf(sp))).toBe(before);
          break;
        }
        if (!result.change) break;
        const done: number[] = [];
        for (let o = Math.max(first, lastStart); o <= last; o++) {
          const type = types.length === 1 ? types[0] : types[o - first];
          if (type === 0 || type === 1 || type === 3) done.push(o);
        }
        pending.push({ change: result.change, ...recordNow(), done, leases: [] });
        break;
      }
      case 'settle': {
        if (pending.length === 0) break;
        // Writes commit in order; a failure fails the writes after it too (one batch and those behind it).
        const upTo = s.pick % pending.length;
        const settled = pending.slice(0, upTo + 1);
        pending = pending.slice(upTo + 1);
        for (const p of s.ok ? settled : [...settled, ...pending.splice(0)]) {
          const ok = s.ok;
          sp.complete(p.change, ok, now, LIMITS);
          if (!ok) continue;
          // Writes commit in log order and each record is the whole state: the last one is what a load takes.
          written = p.record;
          sp.horizon.commit(p.horizon);
          for (const o of p.done) answeredDone.add(o);
          for (const lease of p.leases)
            for (let o = lease.firstOffset; o <= lease.lastOffset; o++) delivered.set(o, lease.deliveryCount);
        }
        break;
      }
      case 'advance':
        now += s.ms;
        sp.expire(now, LIMITS);
        break;
      case 'leave':
        sp.releaseMember(MEMBERS[s.member], now, LIMITS);
        break;
      case 'report':
        reportedEnd += s.grow;
        sp.reportEnd(reportedEnd);
        break;
      case 'restart': {
        // The node stops: writes not committed are lost, leases are void; the partition comes back from its records.
        pending = [];
        sp = written ? partitionFromSnapshot(written, LIMITS).partition : new SharePartition(0, 0);
        sp.reportEnd(reportedEnd);
        lastStart = Math.min(lastStart, sp.startOffset);
        break;
      }
    }
    // Each offset held by at most one member: runs do not overlap and each holds one lease.
    for (let i = 1; i < sp.runs.length; i++) expect(sp.runs[i].first).toBe(sp.runs[i - 1].last + 1);
    for (const r of sp.runs) {
      if (r.state === RecordState.ACQUIRED) {
        expect(r.last).toBeLessThan(reportedEnd);
        expect(heldBy(r.first)).toBe(r.lease!.memberId);
      }
      expect(r.count).toBeLessThanOrEqual(LIMITS.deliveryCountLimit);
    }
    // Within the window: a load may bring offsets up to the horizon (a window past the leases) into it.
    const held = sp.runs.filter((r) => r.state === RecordState.ACQUIRED);
    for (const r of held) expect(r.last).toBeLessThan(sp.startOffset + LIMITS.maxRecordLocks);
    expect(held.reduce((n, r) => n + r.last - r.first + 1, 0)).toBeLessThanOrEqual(LIMITS.maxRecordLocks);
    if (sp.stateEpoch === lastEpoch) expect(sp.startOffset).toBeGreaterThanOrEqual(lastStart);
    lastStart = sp.startOffset;
    lastEpoch = sp.stateEpoch;
  }
}

describe('share partition invariants under random histories', () => {
  it('holds each offset once, never leases a done offset again and never lowers a delivery count, restarts included', () => {
    fc.assert(
      fc.property(fc.array(step, { minLength: 10, maxLength: 80 }), (steps) => run(steps)),
      { numRuns: 150, seed: 932 },
    );
  });
});
