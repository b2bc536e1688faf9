import type { ArgumentMetadata, Type } from '@nestjs/common';
import fc from 'fast-check';
import { KafkaValidationPipe } from '../../common/kafka-validation.pipe';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { ConsumerGroupHeartbeatDto } from '../dto/consumer-group-heartbeat.dto';
import { HeartbeatDto } from '../dto/heartbeat.dto';
import { JoinGroupDto } from '../dto/join-group.dto';
import { OffsetCommitDto } from '../dto/offset-commit.dto';
import { OffsetFetchDto } from '../dto/offset-fetch.dto';
import { SyncGroupDto } from '../dto/sync-group.dto';
import { ShareAcknowledgeDto } from '../dto/share-acknowledge.dto';
import { ShareAcquireDto } from '../dto/share-acquire.dto';
import { compiledAccept } from './socket-contracts';

const acceptHeartbeat = compiledAccept(HeartbeatDto);
const acceptOffsetCommit = compiledAccept(OffsetCommitDto);
const acceptOffsetFetch = compiledAccept(OffsetFetchDto);
const acceptSyncGroup = compiledAccept(SyncGroupDto);
const acceptJoinGroup = compiledAccept(JoinGroupDto);
const acceptConsumerHeartbeat = compiledAccept(ConsumerGroupHeartbeatDto);
const acceptShareAcquire = compiledAccept(ShareAcquireDto);
const acceptShareAcknowledge = compiledAccept(ShareAcknowledgeDto);

/**
 * The compiled checks (derived from the DTOs' schemas) may only say yes where the DTO's class-validator rules say yes, and must then give what
 * the pipe gives: run both on the same random, boundary and hostile payloads (as JSON, the way a socket
 * delivers them). Counting both outcomes keeps the property from passing on payloads one side never sees.
 */
const pipe = new KafkaValidationPipe();

async function throughPipe<T>(dto: Type<T>, json: string): Promise<{ ok: true; value: unknown } | { ok: false }> {
  const metadata: ArgumentMetadata = { type: 'body', metatype: dto, data: undefined };
  try {
    return { ok: true, value: await pipe.transform(JSON.parse(json), metadata) };
  } catch {
    return { ok: false };
  }
}

const text = (max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.string({ maxLength: 8 }) },
    fc.string({ unit: 'grapheme', maxLength: 4 }),
    fc.string({ unit: 'binary', maxLength: 4 }),
    fc.constantFrom(
      '',
      '\uFE0F',
      'a\uFE0F',
      '\uD83D\uDE00',
      '\uD800',
      'x'.repeat(max),
      'x'.repeat(max + 1),
      `${'x'.repeat(max - 1)}\uD83D\uDE00`,
    ),
  );
const int = (min: number, max: number) =>
  fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min, max }) },
    fc.constantFrom(min, max, min - 1, max + 1, 0.5, -0, Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER + 2),
    fc.double(),
  );
const junk = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.string({ maxLength: 3 }),
  fc.integer(),
  fc.constant([]),
  fc.constant({}),
  fc.jsonValue({ maxDepth: 2 }),
);
/** A field: absent, or a value of its own kind, or anything else. */
const field = (own: fc.Arbitrary<unknown>) =>
  fc.oneof(
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 20, arbitrary: own },
    { weight: 1, arbitrary: junk },
  );

const extraKey = fc.oneof(
  { weight: 6, arbitrary: fc.constant(null) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.constantFrom('__proto__', 'constructor', 'toString', 'extra', 'prototype'), junk),
  },
);
/** An object as JSON text, maybe with one key no DTO has (JSON.parse keeps `__proto__` as an own key). */
const objectJson = (fields: Record<string, fc.Arbitrary<unknown>>) =>
  fc.tuple(fc.record(fields, { requiredKeys: [] }), extraKey).map(([value, extra]) => {
    const body = JSON.stringify(value);
    if (extra === null) return body;
    const [key, v] = extra;
    return body === '{}'
      ? `{${JSON.stringify(key)}:${JSON.stringify(v)}}`
      : `{${JSON.stringify(key)}:${JSON.stringify(v)},${body.slice(1)}`;
  });
const list = (element: fc.Arbitrary<string>) =>
  fc.array(element, { maxLength: 3 }).map((items) => `[${items.join(',')}]`);
/** A list field's JSON: mostly a list of `element`s with a stray junk item now and then, sometimes junk itself. */
const listOrJunk = (element: fc.Arbitrary<string>) =>
  fc.oneof(
    {
      weight: 4,
      arbitrary: list(
        fc.oneof({ weight: 4, arbitrary: element }, { weight: 1, arbitrary: junk.map((j) => JSON.stringify(j)) }),
      ),
    },
    { weight: 1, arbitrary: junk.map((j) => JSON.stringify(j)) },
  );
const instanceId = fc.oneof(fc.constant(null), text(MAX_TOPIC_NAME_LENGTH));
const heartbeat = objectJson({
  groupId: field(text(MAX_ID_LENGTH)),
  generationId: field(int(INT32_MIN, INT32_MAX)),
  memberId: field(text(MAX_ID_LENGTH)),
  groupInstanceId: field(instanceId),
});
const commitPartition = objectJson({
  partitionIndex: field(int(0, INT32_MAX)),
  committedOffset: field(int(0, Number.MAX_SAFE_INTEGER)),
  committedLeaderEpoch: field(fc.oneof(fc.constant(null), int(-1, INT32_MAX))),
  committedMetadata: field(fc.oneof(fc.constant(null), text(10))),
});
const commitTopic = fc
  .tuple(
    objectJson({ name: field(text(MAX_TOPIC_NAME_LENGTH)) }),
    fc.oneof(
      list(commitPartition),
      junk.map((j) => JSON.stringify(j)),
    ),
  )
  .map(([head, partitions]) => spliceField(head, 'partitions', partitions));
const offsetCommit = fc
  .tuple(
    objectJson({
      groupId: field(text(MAX_ID_LENGTH)),
      generationId: field(int(INT32_MIN, INT32_MAX)),
      memberId: field(fc.oneof(fc.constant(null), text(MAX_ID_LENGTH))),
      groupInstanceId: field(instanceId),
    }),
    listOrJunk(commitTopic),
  )
  .map(([head, topics]) => spliceField(head, 'topics', topics));
const fetchTopic = objectJson({
  name: field(text(MAX_TOPIC_NAME_LENGTH)),
  partitionIndexes: field(fc.oneof(fc.array(int(0, INT32_MAX), { maxLength: 3 }), junk)),
});
const offsetFetch = fc
  .tuple(
    objectJson({
      groupId: field(text(MAX_ID_LENGTH)),
      requireStable: field(fc.oneof(fc.boolean(), fc.constant(null))),
    }),
    fc.oneof(
      fc.constant('null'),
      list(fetchTopic),
      junk.map((j) => JSON.stringify(j)),
      fc.constant(undefined),
    ),
  )
  .map(([head, topics]) => (topics === undefined ? head : spliceField(head, 'topics', topics)));

/** A consumer assignment as a leader sends it, or any JSON (an assignment is opaque to the DTO), or hostile keys inside it. */
const assignmentValue = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        partitions: fc.array(
          fc.record({ topic: text(MAX_TOPIC_NAME_LENGTH), partitions: fc.array(int(0, INT32_MAX), { maxLength: 3 }) }),
          { maxLength: 2 },
        ),
      })
      .map((v) => JSON.stringify(v)),
  },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 6 }).map((v) => JSON.stringify(v)) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"partitions":[],"__proto__":{"x":1}}',
      '{"a":{"constructor":1}}',
      '[{"__proto__":[]}]',
      'null',
      '{"a":[[[[[[1]]]]]]}',
    ),
  },
);
/** `{ <idKey>: id, <valueKey>: opaque JSON }`, either key maybe missing: a SyncGroup assignment, a JoinGroup protocol. */
const idWithOpaque = (idKey: string, valueKey: string) =>
  fc
    .tuple(
      objectJson({ [idKey]: field(text(MAX_ID_LENGTH)) }),
      fc.oneof({ weight: 8, arbitrary: assignmentValue }, { weight: 1, arbitrary: fc.constant(undefined) }),
    )
    .map(([head, value]) => (value === undefined ? head : spliceField(head, valueKey, value)));
const syncAssignment = idWithOpaque('memberId', 'assignment');
const syncGroup = fc
  .tuple(
    objectJson({
      groupId: field(text(MAX_ID_LENGTH)),
      generationId: field(int(INT32_MIN, INT32_MAX)),
      memberId: field(text(MAX_ID_LENGTH)),
      groupInstanceId: field(instanceId),
      protocolType: field(fc.oneof(fc.constant(null), text(MAX_ID_LENGTH))),
      protocolName: field(fc.oneof(fc.constant(null), text(MAX_ID_LENGTH))),
    }),
    listOrJunk(syncAssignment),
  )
  .map(([head, assignments]) => spliceField(head, 'assignments', assignments));

/** A protocol with consumer-like metadata, or any JSON, or hostile keys inside it. */
const joinProtocol = idWithOpaque('name', 'metadata');
const joinGroup = fc
  .tuple(
    objectJson({
      groupId: field(text(MAX_ID_LENGTH)),
      sessionTimeoutMs: field(int(INT32_MIN, INT32_MAX)),
      rebalanceTimeoutMs: field(fc.oneof(fc.constant(null), int(INT32_MIN, INT32_MAX))),
      memberId: field(text(MAX_ID_LENGTH)),
      groupInstanceId: field(instanceId),
      protocolType: field(text(MAX_ID_LENGTH)),
      reason: field(
        fc.oneof(
          fc.constant(null),
          text(10),
          fc.constantFrom('x'.repeat(MAX_REASON_LENGTH), 'x'.repeat(MAX_REASON_LENGTH + 1)),
        ),
      ),
      serverAssignor: field(fc.oneof(fc.constant(null), text(MAX_ID_LENGTH))),
    }),
    listOrJunk(joinProtocol),
  )
  .map(([head, protocols]) => spliceField(head, 'protocols', protocols));

/** A KIP-848 heartbeat: a join with every field, a steady one with its epoch alone, and all between. */
const ownedTopic = objectJson({
  topic: field(text(MAX_TOPIC_NAME_LENGTH)),
  partitions: field(fc.oneof(fc.array(int(0, INT32_MAX), { maxLength: 3 }), junk)),
});
const orNull = (own: fc.Arbitrary<unknown>) => fc.oneof(fc.constant(null), own);
const consumerHeartbeat = fc
  .tuple(
    objectJson({
      groupId: field(text(MAX_ID_LENGTH)),
      memberId: field(text(MAX_ID_LENGTH)),
      memberEpoch: field(int(-2, INT32_MAX)),
      instanceId: field(orNull(text(MAX_TOPIC_NAME_LENGTH))),
      rackId: field(orNull(text(MAX_ID_LENGTH))),
      rebalanceTimeoutMs: field(orNull(int(-1, INT32_MAX))),
      subscribedTopicNames: field(orNull(fc.array(text(MAX_TOPIC_NAME_LENGTH), { maxLength: 3 }))),
      subscribedTopicRegex: field(orNull(text(MAX_REASON_LENGTH))),
      serverAssignor: field(orNull(text(MAX_ID_LENGTH))),
    }),
    fc.oneof(listOrJunk(ownedTopic), fc.constant('null'), fc.constant(undefined)),
  )
  .map(([head, owned]) => (owned === undefined ? head : spliceField(head, 'topicPartitions', owned)));

/** A batch of offsets with one type for all of them, or one per offset (out of range now and then). */
const ackBatch = objectJson({
  firstOffset: field(int(0, Number.MAX_SAFE_INTEGER)),
  lastOffset: field(int(0, Number.MAX_SAFE_INTEGER)),
  acknowledgeTypes: field(fc.oneof(fc.array(int(0, 4), { maxLength: 3 }), junk)),
});
const acknowledgement = fc
  .tuple(
    objectJson({ topic: field(text(MAX_TOPIC_NAME_LENGTH)), partition: field(int(0, INT32_MAX)) }),
    listOrJunk(ackBatch),
  )
  .map(([head, batches]) => spliceField(head, 'batches', batches));
const shareAcknowledge = fc
  .tuple(
    objectJson({ groupId: field(text(MAX_ID_LENGTH)), memberId: field(text(MAX_ID_LENGTH)) }),
    listOrJunk(acknowledgement),
  )
  .map(([head, acknowledgements]) => spliceField(head, 'acknowledgements', acknowledgements));
const shareAcquire = fc
  .tuple(
    objectJson({
      groupId: field(text(MAX_ID_LENGTH)),
      memberId: field(text(MAX_ID_LENGTH)),
      maxRecords: field(int(1, INT32_MAX)),
      batchSize: field(int(1, INT32_MAX)),
      maxWaitMs: field(int(0, 300_000)),
    }),
    fc.oneof(fc.constant(undefined), listOrJunk(acknowledgement)),
  )
  .map(([head, acks]) => (acks === undefined ? head : spliceField(head, 'acknowledgements', acks)));

/** Adds `"key": <raw json>` to an object's JSON text. */
function spliceField(objectJsonText: string, key: string, raw: string): string {
  return objectJsonText === '{}'
    ? `{${JSON.stringify(key)}:${raw}}`
    : `${objectJsonText.slice(0, -1)},${JSON.stringify(key)}:${raw}}`;
}

async function agrees<T>(
  dto: Type<T>,
  accept: (payload: unknown) => unknown,
  payloads: fc.Arbitrary<string>,
  valid: string,
): Promise<void> {
  const seen = { fast: 0, pipeOnly: 0, refused: 0 };
  await fc.assert(
    fc.asyncProperty(
      fc.oneof({ weight: 9, arbitrary: payloads }, { weight: 1, arbitrary: junk.map((j) => JSON.stringify(j)) }),
      async (json) => {
        const fast = accept(JSON.parse(json));
        const slow = await throughPipe(dto, json);
        if (fast === null) {
          seen[slow.ok ? 'pipeOnly' : 'refused']++;
          return;
        }
        seen.fast++;
        expect(slow.ok).toBe(true);
        expect(fast).toEqual(slow.ok ? slow.value : undefined);
      },
    ),
    // A fixed seed, so the counts below are the same on every run: with a random one, the share of
    // generated OffsetCommits the fast check accepts varied around 100 of 1,500 and fell short now and then.
    { numRuns: 1500, seed: 20261202 },
  );
  // Both sides of the comparison are exercised (with this seed: 103-342 fast, over 1,000 refused per event).
  expect(seen.fast).toBeGreaterThan(50);
  expect(seen.refused).toBeGreaterThan(100);
  // The common shape never pays for class-validator.
  expect(accept(JSON.parse(valid))).not.toBeNull();
}

describe('compiled checks of hot requests', () => {
  jest.setTimeout(120_000);

  it('accepts a Heartbeat only where HeartbeatDto does, with the same result', () =>
    agrees(HeartbeatDto, acceptHeartbeat, heartbeat, '{"groupId":"g","generationId":3,"memberId":"m-1"}'));

  it('accepts an OffsetCommit only where OffsetCommitDto does, with the same result', () =>
    agrees(
      OffsetCommitDto,
      acceptOffsetCommit,
      offsetCommit,
      '{"groupId":"g","generationId":-1,"memberId":"","topics":[{"name":"t","partitions":[{"partitionIndex":0,"committedOffset":5}]}]}',
    ));

  it('accepts an OffsetFetch only where OffsetFetchDto does, with the same result', () =>
    agrees(
      OffsetFetchDto,
      acceptOffsetFetch,
      offsetFetch,
      '{"groupId":"g","topics":[{"name":"t","partitionIndexes":[0,1]}]}',
    ));

  it("accepts a SyncGroup only where SyncGroupDto does, with the same result (the leader's carries every assignment)", () =>
    agrees(
      SyncGroupDto,
      acceptSyncGroup,
      syncGroup,
      '{"groupId":"g","generationId":1,"memberId":"m-1","groupInstanceId":null,"protocolType":"consumer","protocolName":"range","assignments":[{"memberId":"m-1","assignment":{"partitions":[{"topic":"t","partitions":[0,1]}]}}]}',
    ));

  it('accepts a JoinGroup only where JoinGroupDto does, with the same result (every member sends two per rebalance)', () =>
    agrees(
      JoinGroupDto,
      acceptJoinGroup,
      joinGroup,
      '{"groupId":"g","sessionTimeoutMs":45000,"rebalanceTimeoutMs":300000,"memberId":"","groupInstanceId":null,"protocolType":"consumer","protocols":[{"name":"range","metadata":{"topics":["t"]}}],"reason":null}',
    ));

  it('accepts a ConsumerGroupHeartbeat only where ConsumerGroupHeartbeatDto does, with the same result (every member sends one per interval)', () =>
    agrees(
      ConsumerGroupHeartbeatDto,
      acceptConsumerHeartbeat,
      consumerHeartbeat,
      '{"groupId":"g","memberId":"m-1","memberEpoch":7,"topicPartitions":[{"topic":"t","partitions":[0,1]}]}',
    ));

  it('accepts a ShareAcquire only where ShareAcquireDto does, with the same result (a share worker sends one per job)', () =>
    agrees(
      ShareAcquireDto,
      acceptShareAcquire,
      shareAcquire,
      '{"groupId":"g","memberId":"m-1","maxRecords":1,"batchSize":1,"maxWaitMs":100}',
    ));

  it('accepts a ShareAcknowledge only where ShareAcknowledgeDto does, with the same result', () =>
    agrees(
      ShareAcknowledgeDto,
      acceptShareAcknowledge,
      shareAcknowledge,
      '{"groupId":"g","memberId":"m-1","acknowledgements":[{"topic":"t","partition":0,"batches":[{"firstOffset":5,"lastOffset":104,"acknowledgeTypes":[1]}]}]}',
    ));

  it('leaves hostile keys and binary values to the DTO', () => {
    expect(
      acceptSyncGroup(
        JSON.parse(
          '{"groupId":"g","generationId":1,"memberId":"m","assignments":[{"memberId":"m","assignment":{"__proto__":{"x":1}}}]}',
        ),
      ),
    ).toBeNull();
    expect(
      acceptSyncGroup({
        groupId: 'g',
        generationId: 1,
        memberId: 'm',
        assignments: [{ memberId: 'm', assignment: Buffer.from('x') }],
      }),
    ).toBeNull();
    expect(
      acceptHeartbeat(JSON.parse('{"groupId":"g","generationId":1,"memberId":"m","__proto__":{"x":1}}')),
    ).toBeNull();
    expect(
      acceptOffsetCommit({
        groupId: 'g',
        generationId: 1,
        topics: [
          { name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1, committedMetadata: Buffer.from('x') }] },
        ],
      }),
    ).toBeNull();
    expect(acceptOffsetFetch({ groupId: Buffer.from('g'), topics: null })).toBeNull();
    expect(
      acceptJoinGroup(
        JSON.parse(
          '{"groupId":"g","sessionTimeoutMs":1,"memberId":"","protocolType":"consumer","protocols":[{"name":"r","metadata":{"__proto__":{}}}]}',
        ),
      ),
    ).toBeNull();
  });
});
