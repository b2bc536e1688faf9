import type { LogRecord } from '@cohort/replication';
import { type ConsumerGroupStore, replayConsumerRecord } from './consumer-group-replay';
import { decodeConsumerRecordKey } from './consumer-records';
import { valueToReplay } from './written-bytes';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupMember } from './consumer-group-member';
import type { EpochBump } from './epoch-history';
import type { TopicPartitions } from './topic-partitions';

type RecordKey = NonNullable<ReturnType<typeof decodeConsumerRecordKey>>;

/**
 * One record of a pending write, and the state of its key it replaced (what `undo` restores). Plain
 * data rather than a restoring closure: a group forming applies tens of thousands of records, and a
 * closure (with its context, and the context's own closure) per record was a good part of what forming
 * allocated.
 */
class AppliedRecord {
  constructor(
    readonly groupId: string,
    readonly record: LogRecord,
    readonly key: RecordKey,
    /** The group as the record found it; undefined when the record created it. */
    readonly group: ConsumerGroup | undefined,
    /** The member, the target or the assignment epoch the record replaced (a group record: its group epoch). */
    readonly previous: ConsumerGroupMember | TopicPartitions | number | undefined,
    /** A group record's metadata hash and epoch history as the record found them. */
    readonly metadataHash = 0,
    readonly history: readonly EpochBump[] | null = null,
  ) {}
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
      pending.applied.push(this.appliedRecord(record, key));
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
    for (let i = touched.length - 1; i >= 0; i--) this.undo(touched[i]);
    this.pending = this.pending.filter((write) => !dropped.has(write));
    for (const write of this.pending.slice(first)) {
      const { applied } = write;
      for (let i = 0; i < applied.length; i++) {
        const { groupId: of, record, key } = applied[i];
        if (of !== groupId) continue;
        applied[i] = this.appliedRecord(record, key);
        replayConsumerRecord(this.store, key, valueToReplay(record));
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
      for (let i = undone.applied.length - 1; i >= 0; i--) this.undo(undone.applied[i]);
    }
  }

  /** Drops the committed front: `pending` then holds only the writes not committed yet. */
  private compact(): void {
    if (this.head === 0) return;
    this.pending = this.pending.slice(this.head);
    this.head = 0;
  }

  /** `record` (of `key`) about to be applied, with the state of its key as it is now. */
  private appliedRecord(record: LogRecord, key: RecordKey): AppliedRecord {
    const { groupId } = key;
    const group = this.store.get(groupId);
    if (!group) return new AppliedRecord(groupId, record, key, undefined, undefined);
    switch (key.type) {
      case 'consumer-group-metadata':
        return new AppliedRecord(
          groupId,
          record,
          key,
          group,
          group.groupEpoch,
          group.metadataHash,
          group.history.entries,
        );
      case 'consumer-group-target-assignment-metadata':
        return new AppliedRecord(groupId, record, key, group, group.assignmentEpoch);
      case 'consumer-group-target-assignment-member':
        return new AppliedRecord(groupId, record, key, group, group.targetAssignment.get(key.memberId));
      case 'consumer-group-member-metadata':
      case 'consumer-group-current-member-assignment':
        return new AppliedRecord(groupId, record, key, group, group.member(key.memberId));
    }
  }

  /** Restores the state `applied` replaced. */
  private undo(applied: AppliedRecord): void {
    const { groupId, key, group, previous } = applied;
    if (!group) {
      // The record created the group: taking it back removes the group again.
      if (this.store.get(groupId)) this.store.remove(groupId);
      return;
    }
    const current = this.store.get(groupId) ?? group;
    switch (key.type) {
      case 'consumer-group-metadata':
        if (!this.store.get(groupId)) this.restoreGroup(current);
        current.metadataHash = applied.metadataHash;
        current.setGroupEpoch(previous as number);
        current.history.restore(applied.history as readonly EpochBump[]);
        return;
      case 'consumer-group-target-assignment-metadata':
        current.setTargetAssignmentEpoch(previous as number);
        return;
      case 'consumer-group-target-assignment-member':
        if (previous) current.updateTargetAssignment(key.memberId, previous as TopicPartitions);
        else current.removeTargetAssignment(key.memberId);
        return;
      case 'consumer-group-member-metadata':
      case 'consumer-group-current-member-assignment':
        if (previous) current.updateMember(previous as ConsumerGroupMember);
        else current.removeMember(key.memberId);
        return;
    }
  }

  /** A group a taken-back tombstone had removed goes back into the store (no heartbeat writes one today). */
  private restoreGroup(group: NonNullable<ReturnType<ConsumerGroupStore['get']>>): void {
    this.store.restore?.(group);
  }
}
