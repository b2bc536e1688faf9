import { createUniformAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness } from '@cohort/coordinator/testing';
import { MapConsumerGroupStore, replayConsumerRecord } from './consumer-group-replay';
import {
  consumerGroupEpochRecord,
  decodeConsumerGroupMetadataValue,
  decodeConsumerRecordKey,
} from './consumer-records';
import { EPOCH_BUMP_REASONS, type EpochBump, persistBumps } from './epoch-history';

// The group epoch record carries the group's epoch history; it is built from each bump's JSON kept
// across records, and the process that wrote it replays it without decoding its bytes again. Both must
// give exactly what the plain encoding and a decode of the bytes (a load from the log) give.

/** A deterministic pseudo-random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1_664_525 + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

function randomBump(next: () => number, groupEpoch: number): EpochBump {
  const startedAt = 1_700_000_000_000 + Math.floor(next() * 1e9);
  return {
    groupEpoch,
    reason: EPOCH_BUMP_REASONS[Math.floor(next() * EPOCH_BUMP_REASONS.length)],
    memberId: next() < 0.2 ? null : `member-${Math.floor(next() * 1e6)}-"quoted"\u00e9\\`,
    startedAt,
    completedAt: next() < 0.5 ? null : startedAt + Math.floor(next() * 10_000),
    members: Math.floor(next() * 20_000),
  };
}

describe('the consumer group epoch record', () => {
  it('writes the bytes of the plain JSON value, over many histories that share their bumps from record to record', () => {
    const next = random(848);
    let history: EpochBump[] = [];
    for (let epoch = 1; epoch <= 2_000; epoch++) {
      // As the manager does: a new bump at the end, the oldest dropped past the capacity, the newest sometimes closed.
      history = [...history, randomBump(next, epoch)].slice(-Math.ceil(next() * 25));
      if (next() < 0.3) {
        const last = history[history.length - 1];
        history = [...history.slice(0, -1), { ...last, completedAt: last.startedAt + 7 }];
      }
      const hash = Math.floor(next() * 2 ** 31) * (next() < 0.5 ? -1 : 1);
      const written = consumerGroupEpochRecord('orders-app', epoch, hash, 1_000 + epoch, history);
      const plain = JSON.stringify({ v: 0, epoch, metadataHash: hash, history: persistBumps(history) });
      expect(written.value!.toString('utf8')).toBe(plain);
    }
  });

  it('replays its own record as a load decodes the same bytes from the log', () => {
    const next = random(4_100);
    let history: EpochBump[] = [];
    for (let epoch = 1; epoch <= 200; epoch++) {
      history = [...history, randomBump(next, epoch)].slice(-20);
      const written = consumerGroupEpochRecord('orders-app', epoch, 42, 1_000, history);
      const fromLog = decodeConsumerGroupMetadataValue(Buffer.from(written.value!));
      expect(decodeConsumerGroupMetadataValue(written.value!)).toEqual(fromLog);
      expect(fromLog.history).toEqual(history);
    }
    const withoutHistory = consumerGroupEpochRecord('orders-app', 7, 42, 1_000);
    expect(withoutHistory.value!.toString('utf8')).toBe('{"v":0,"epoch":7,"metadataHash":42}');
    expect(decodeConsumerGroupMetadataValue(withoutHistory.value!)).toEqual(
      decodeConsumerGroupMetadataValue(Buffer.from(withoutHistory.value!)),
    );
  });

  it('leaves a group forming through its own records as a load of their bytes leaves it', () => {
    const h = new ConsumerGroupHarness({ assignors: [createUniformAssignor()], topics: { orders: 40 } });
    const ids = Array.from({ length: 30 }, (_, i) => `m${i}`);
    const joined = h.heartbeatBatch(
      ids.map((memberId) => ({
        groupId: 'orders-app',
        memberId,
        memberEpoch: 0,
        rebalanceTimeoutMs: 60_000,
        subscribedTopicNames: ['orders'],
        topicPartitions: [],
      })),
    );
    h.heartbeatBatch(
      ids.map((memberId, i) => ({
        groupId: 'orders-app',
        memberId,
        memberEpoch: joined.answers[i].response.memberEpoch,
        topicPartitions: joined.answers[i].response.assignment?.topicPartitions ?? [],
      })),
    );
    expect(h.manager.group('orders-app')!.state).toBe('Stable');
    const own = new MapConsumerGroupStore();
    const fromLog = new MapConsumerGroupStore();
    for (const { key, value } of h.log) {
      replayConsumerRecord(own, decodeConsumerRecordKey(key)!, value);
      replayConsumerRecord(fromLog, decodeConsumerRecordKey(Buffer.from(key))!, value && Buffer.from(value));
      expect(decodeConsumerRecordKey(key)).toEqual(decodeConsumerRecordKey(Buffer.from(key)));
    }
    expect(own.get('orders-app')).toEqual(fromLog.get('orders-app'));
    expect(fromLog.get('orders-app')!.groupEpoch).toBe(30);
    expect(fromLog.get('orders-app')!.history.entries).toHaveLength(20);
  });
});
