/**
 * The delivery horizon of one share partition (docs/protocol.md, "delivery horizon"). Every record of
 * the partition's state may write the offsets past those ever leased, up to the horizon, as delivered
 * once (AVAILABLE at count 1, share-state-snapshot.ts); once such a record is committed, leasing one of
 * those offsets for the first time (count 1) writes nothing, since the log already holds a count no
 * lower than the member sees, and the acquire needs no durable round. A load brings them back at count 1:
 * an offset never actually leased is then delivered at count 2, one more than its deliveries; an offset
 * leased under the horizon is never seen with a count lower than before, failover included.
 *
 * The horizon runs one window (`GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS`) ahead of the offsets leased,
 * within the reported end, and moves only with a record written after new offsets were leased: a
 * partition that leases nothing new (created, reset, only redeliveries) writes no horizon further, so
 * a restart does not count its offsets delivered.
 */
export class DeliveryHorizon {
  /** The horizon of the last committed record: new offsets below it are leased without a write. */
  committed: number;
  /** The horizon of the last record encoded, committed or not: a later record never holds less. */
  private written: number;
  /** The end of the offsets leased when the last record was encoded. */
  private leasedEnd: number;

  constructor(endOffset: number) {
    this.committed = endOffset;
    this.written = endOffset;
    this.leasedEnd = endOffset;
  }

  /**
   * The horizon of a record encoded now, for a partition whose leased offsets end at `endOffset` (the
   * record then writes `[endOffset, horizon)` as delivered once), producers having reported `reportedEnd`.
   * Never below an earlier record's, under whose horizon an acquire may already have leased.
   */
  toWrite(endOffset: number, reportedEnd: number, window: number): number {
    if (endOffset > this.leasedEnd) this.written = Math.max(this.written, Math.min(reportedEnd, endOffset + window));
    this.leasedEnd = endOffset;
    this.written = Math.max(this.written, endOffset);
    return this.written;
  }

  /** A record holding `horizon` is committed. */
  commit(horizon: number): void {
    if (horizon > this.committed) this.committed = horizon;
  }
}
