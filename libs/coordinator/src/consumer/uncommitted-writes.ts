import type { LogRecord } from '@cohort/replication';
import { type ConsumerGroupStore, replayConsumerRecord } from './consumer-group-replay';
import { decodeConsumerRecordKey } from './consumer-records';
import { valueToReplay } from './written-bytes';

/** One record of a pending write, and what restores the state it replaced. */
interface AppliedRecord {
  readonly groupId: string;
  readonly record: LogRecord;
  undo: () => void;
}

/** One write whose records are applied to the groups but not yet committed. */
interface PendingWrite {
  /** Its records in order; undone in reverse order. */
  readonly applied: AppliedRecord[];
}

/**
 * Applies consumer group records as soon as a step produces them, as Kafka's runtime replays a
 * result's records before the next request (so the next heartbeat of the same batch sees the new
 * epochs), and takes them back if their write fails (Kafka reverts to its last committed snapshot).
 * Instead of snapshots, each record remembers what it replaced — the member, target or epochs of its
 * key — and a failed write restores them newest first, together with every write applied after it,
 * which was computed from its state. A write that times out is not a failure: its records may still
 * commit, so it stays until the log decides.
 */
export class UncommittedWrites {
  /**
   * The writes not committed yet, in order, from `head` on: a commit moves the head instead of splicing
   * the front off, which moved every later write once per commit (a burst of 20,000 writes then spent
   * seconds copying this array).
   */
  private pending: PendingWrite[] = [];
  private head = 0;

  constructor(private readonly store: ConsumerGroupStore) {}

  get size(): number {
    return this.pending.length - this.head;
  }

  /** Applies `records` to the groups; the returned write is handed back to `committed` or `failed`. */
  apply(records: readonly LogRecord[]): object {
    const write: PendingWrite = { applied: [] };
    this.extend(write, records);
    this.pending.push(write);
    return write;
  }

  /** Applies more records as part of `write` (taken back with it). */
  extend(write: object, records: readonly LogRecord[]): void {
    const pending = write as PendingWrite;
    for (const record of records) {
      const key = decodeConsumerRecordKey(record.key);
      if (!key) continue;
      pending.applied.push({ groupId: key.groupId, record, undo: this.restorerOf(key.groupId, key) });
      replayConsumerRecord(this.store, key, valueToReplay(record));
    }
  }

  /**
   * `writes` were applied but will never be written (the operation that made them failed before its
   * records went to the log): what they changed in `groupId` is taken back. The group's records applied
   * after them stay (they are written), applied again on the state without the dropped ones. Other
   * groups are not touched.
   */
  takeBack(groupId: string, writes: readonly object[]): void {
    const dropped = new Set(writes as PendingWrite[]);
    this.compact();
    const first = this.pending.findIndex((write) => dropped.has(write));
    if (first < 0) return;
    const touched = this.pending.slice(first).flatMap((write) => write.applied.filter((a) => a.groupId === groupId));
    for (let i = touched.length - 1; i >= 0; i--) touched[i].undo();
    this.pending = this.pending.filter((write) => !dropped.has(write));
    for (const write of this.pending.slice(first)) {
      for (const applied of write.applied) {
        if (applied.groupId !== groupId) continue;
        const key = decodeConsumerRecordKey(applied.record.key)!;
        applied.undo = this.restorerOf(groupId, key);
        replayConsumerRecord(this.store, key, valueToReplay(applied.record));
      }
    }
  }

  /** The write is in the log: it can no longer be taken back (nor can the writes before it). */
  committed(write: object): void {
    const index = this.pending.indexOf(write as PendingWrite, this.head);
    if (index < 0) return;
    this.head = index + 1;
    // The committed front is dropped once it is most of the array, so the copy is paid once per half.
    if (this.head * 2 >= this.pending.length) this.compact();
  }

  /** The write failed: it and every write applied after it are taken back, newest first. */
  failed(write: object): void {
    const index = this.pending.indexOf(write as PendingWrite, this.head);
    if (index < 0) return;
    for (const undone of this.pending.splice(index).reverse()) {
      for (let i = undone.applied.length - 1; i >= 0; i--) undone.applied[i].undo();
    }
  }

  /** Drops the committed front: `pending` then holds only the writes not committed yet. */
  private compact(): void {
    if (this.head === 0) return;
    this.pending = this.pending.slice(this.head);
    this.head = 0;
  }

  /** What restores the state `key` describes, as it is now. */
  private restorerOf(groupId: string, key: NonNullable<ReturnType<typeof decodeConsumerRecordKey>>): () => void {
    const group = this.store.get(groupId);
    if (!group) {
      // The record creates the group: taking it back removes the group again.
      return () => {
        if (this.store.get(groupId)) this.store.remove(groupId);
      };
    }
    const current = () => this.store.get(groupId) ?? group;
    switch (key.type) {
      case 'consumer-group-metadata': {
        const { groupEpoch, metadataHash } = group;
        const history = group.history.entries;
        return () => {
          const g = current();
          if (!this.store.get(groupId)) this.restoreGroup(g);
          g.metadataHash = metadataHash;
          g.setGroupEpoch(groupEpoch);
          g.history.restore(history);
        };
      }
      case 'consumer-group-target-assignment-metadata': {
        const epoch = group.assignmentEpoch;
        return () => current().setTargetAssignmentEpoch(epoch);
      }
      case 'consumer-group-target-assignment-member': {
        const target = group.targetAssignment.get(key.memberId);
        return () => {
          if (target) current().updateTargetAssignment(key.memberId, target);
          else current().removeTargetAssignment(key.memberId);
        };
      }
      case 'consumer-group-member-metadata':
      case 'consumer-group-current-member-assignment': {
        const member = group.member(key.memberId);
        return () => {
          if (member) current().updateMember(member);
          else current().removeMember(key.memberId);
        };
      }
    }
  }

  /** A group a taken-back tombstone had removed goes back into the store (no heartbeat writes one today). */
  private restoreGroup(group: NonNullable<ReturnType<ConsumerGroupStore['get']>>): void {
    this.store.restore?.(group);
  }
}
