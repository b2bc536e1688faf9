import type { RecordVisitor, StoredRecord } from '@cohort/replication';
import { ClassicGroup } from '../group/classic-group';
import { GroupOffsets } from '../group/group-offsets';
import { MemberMetadata } from '../group/member-metadata';
import type { GroupMetadataRecord } from '../records/group-metadata-record';
import { decodeGroupMetadataValue } from '../records/group-metadata-record';
import type { CommittedOffset } from '../group/group-offsets';
import { decodeCommittedOffsetInto } from '../records/offset-commit-record';
import { KeyReader } from '../records/key-reader';
import { parseJson, RecordDecodeError } from '../records/record-codec';
import type { ConsumerGroup } from '../consumer/consumer-group';
import { MapConsumerGroupStore, replayConsumerRecord } from '../consumer/consumer-group-replay';
import { decodeConsumerRecordKey } from '../consumer/consumer-records';
import { decodeSharePartitionStateKey } from '../share/share-state-records';
import { ShareStateReplay } from '../share/share-state-replay';
import { replayShareRecord, ShareGroupStore } from '../share/share-group-replay';
import { decodeShareRecordKey } from '../share/share-group-records';

/**
 * Replays a partition's records in log order (Kafka's `doLoadGroupsAndOffsets`): a later record wins,
 * tombstones delete, unknown record types are skipped. `build` then brings the groups back the way
 * Kafka does: Stable (or Empty, without members) at their last persisted generation, offsets installed
 * first, and offsets without a group record making Empty offsets-only groups. Consumer group records
 * (types 3, 5-8) replay into consumer groups by Kafka's rules (`replayConsumerRecord`, the live path's
 * own replay); a group id that ends as a consumer group keeps its offsets in an offsets-only holder that
 * the group listings do not show as a classic group.
 */
export class PartitionReplay {
  private readonly groupRecords = new Map<string, GroupMetadataRecord>();
  private readonly offsets = new Map<string, GroupOffsets>();
  private readonly keys = new KeyReader();
  /** The consumer groups, as their records leave them. */
  readonly consumer: MapConsumerGroupStore;
  /** The share partitions' states (share groups' offsets), as their records leave them. */
  readonly sharePartitions = new ShareStateReplay();
  /** The share groups, as their records leave them. */
  readonly share = new ShareGroupStore();
  /** Every offset record is decoded into this one entry, whose fields `GroupOffsets.install` copies. */
  private readonly entry: CommittedOffset = {
    offset: 0,
    leaderEpoch: -1,
    metadata: '',
    commitTimestamp: 0,
    expireTimestamp: null,
    logOffset: -1,
  };
  /** The offsets of the group of the previous record: the records of one commit are of one group. */
  private lastGroupId: string | undefined;
  private lastOffsets: GroupOffsets | undefined;
  records = 0;
  skipped = 0;

  constructor(
    private readonly warn: (message: string) => void,
    historySize?: number,
  ) {
    this.consumer = new MapConsumerGroupStore(historySize);
  }

  apply(record: StoredRecord): void {
    const value = record.value;
    this.visit(record.offset, record.key, 0, record.key.length, value, 0, value === null ? 0 : value.length);
  }

  /** `apply` of a record given as its bytes in place (`PartitionStore.scan`): key `key[keyStart, keyEnd)`, value likewise or null. */
  readonly visit: RecordVisitor = (offset, key, keyStart, keyEnd, value, valueStart, valueEnd) => {
    this.records++;
    try {
      const decoded = this.keys.decodeAt(key, keyStart, keyEnd);
      if (decoded.type === 'offset-commit') {
        const offsets = this.offsetsOf(decoded.groupId);
        if (value === null) offsets.remove(decoded.topic, decoded.partition, offset);
        else
          offsets.install(
            decoded.topic,
            decoded.partition,
            decodeCommittedOffsetInto(this.entry, value, offset, valueStart, valueEnd),
          );
      } else if (decoded.type === 'group-metadata') {
        if (value === null) this.groupRecords.delete(decoded.groupId);
        else this.groupRecords.set(decoded.groupId, decodeGroupMetadataValue(value.subarray(valueStart, valueEnd)));
      } else {
        const shareKey = decodeSharePartitionStateKey(parseJson(key.subarray(keyStart, keyEnd), 'key'));
        if (shareKey) {
          this.sharePartitions.apply(shareKey, value === null ? null : value.subarray(valueStart, valueEnd));
          return;
        }
        const consumerKey = decodeConsumerRecordKey(key.subarray(keyStart, keyEnd));
        if (consumerKey) {
          this.replayConsumer(offset, consumerKey, value === null ? null : value.subarray(valueStart, valueEnd));
          return;
        }
        const shareGroupKey = decodeShareRecordKey(key.subarray(keyStart, keyEnd));
        if (shareGroupKey) {
          replayShareRecord(this.share, shareGroupKey, value === null ? null : value.subarray(valueStart, valueEnd));
          return;
        }
        this.skipped++;
        this.warn(`skipping record at offset ${offset}: unknown key version ${String(decoded.version)}`);
      }
    } catch (error) {
      if (!(error instanceof RecordDecodeError)) throw error;
      this.skipped++;
      this.warn(`skipping record at offset ${offset}: ${error.message}`);
    }
  };

  /**
   * A record in an order Kafka calls an illegal state (a member's tombstone before its assignment's) is
   * skipped with a warning, like an unreadable one, so one bad record cannot keep the partition from loading.
   */
  private replayConsumer(
    offset: number,
    key: NonNullable<ReturnType<typeof decodeConsumerRecordKey>>,
    value: Buffer | null,
  ): void {
    try {
      replayConsumerRecord(this.consumer, key, value, { fromCompactedLog: true });
    } catch (error) {
      if (error instanceof RecordDecodeError) throw error;
      this.skipped++;
      this.warn(`skipping record at offset ${offset}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** The consumer groups the log leaves (built after the classic ones, which `build` returns). */
  consumerGroups(): ConsumerGroup[] {
    return this.consumer.list();
  }

  private offsetsOf(groupId: string): GroupOffsets {
    if (groupId === this.lastGroupId) return this.lastOffsets!;
    let offsets = this.offsets.get(groupId);
    if (!offsets) this.offsets.set(groupId, (offsets = new GroupOffsets()));
    this.lastGroupId = groupId;
    this.lastOffsets = offsets;
    return offsets;
  }

  build(now: number, historySize: number): ClassicGroup[] {
    const ids = new Set([...this.groupRecords.keys(), ...this.offsets.keys()]);
    const groups: ClassicGroup[] = [];
    for (const groupId of ids) {
      // The replayed offsets become the group's own: at a million records, copying them again cost
      // a quarter of the load.
      const offsets = this.offsets.get(groupId) ?? new GroupOffsets();
      const fromRecord = this.rebuild(groupId, now, historySize, offsets);
      if (!fromRecord && !offsets.hasCommitted) continue;
      const group = fromRecord ?? new ClassicGroup(groupId, 'Empty', now, historySize, offsets);
      if (!fromRecord) group.currentStateTimestamp = null;
      groups.push(group);
    }
    return groups;
  }

  /**
   * The group of its last GroupMetadata record, or undefined without one. A record that decodes but
   * describes an impossible group (one instance id on two members) is skipped like an unreadable one,
   * so one bad record cannot keep the whole partition from loading.
   */
  private rebuild(groupId: string, now: number, historySize: number, offsets: GroupOffsets): ClassicGroup | undefined {
    const record = this.groupRecords.get(groupId);
    if (!record) return undefined;
    try {
      return groupFromRecord(groupId, record, now, historySize, offsets);
    } catch (error) {
      this.skipped++;
      this.warn(`skipping the group record of ${groupId}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    }
  }

  get groupCount(): number {
    return this.groupRecords.size;
  }
}

/** Kafka's `GroupMetadata.loadGroup`: members keep only the chosen protocol's subscription and their assignment. */
function groupFromRecord(
  groupId: string,
  record: GroupMetadataRecord,
  now: number,
  historySize: number,
  offsets: GroupOffsets,
): ClassicGroup {
  const group = new ClassicGroup(groupId, record.members.length === 0 ? 'Empty' : 'Stable', now, historySize, offsets);
  group.generationId = record.generation;
  group.protocolType = record.protocolType === '' ? null : record.protocolType;
  group.protocolName = record.protocol;
  group.serverAssignor = record.serverAssignor;
  for (const m of record.members) {
    const member = new MemberMetadata({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      clientId: m.clientId,
      clientHost: m.clientHost,
      rebalanceTimeoutMs: m.rebalanceTimeout,
      sessionTimeoutMs: m.sessionTimeout,
      protocolType: record.protocolType,
      protocols: [{ name: record.protocol ?? '', metadata: m.subscription }],
      serverAssignor: m.serverAssignor,
    });
    member.assignment = m.assignment;
    group.add(member, null);
  }
  if (record.leader !== null && group.has(record.leader)) group.leaderId = record.leader;
  group.currentStateTimestamp = record.currentStateTimestamp;
  group.subscribedTopics = group.computeSubscribedTopics();
  group.history.restore(record.rebalances ?? []);
  return group;
}
