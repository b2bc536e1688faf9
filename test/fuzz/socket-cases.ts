import { RequestEvent } from '@cohort/protocol';
import type { SeededRandom } from './seeded-random';
import { mutate, nested, randomString, randomValue } from './value-generators';

/** Ids the fuzzer aims at: the canary (which must not change), groups of its own, and made-up ones. */
export interface FuzzTargets {
  canaryGroup: string;
  canaryTopic: string;
  canaryGeneration: number;
}

export interface SocketCase {
  event: string;
  /** `undefined`: the event is sent without a payload. */
  payload: unknown;
  withAck: boolean;
}

/** The longest a fuzzed JoinGroup may ask to be held (see socketCase). */
export const MAX_FUZZ_REBALANCE_TIMEOUT_MS = 3_000;

// socket.io-client refuses to emit its reserved names (connect, disconnect, disconnecting, ...): raw frames send those.
const UNKNOWN_EVENTS = [
  'Foo',
  'joingroup',
  'JoinGroup ',
  'ApiVersions',
  'toString',
  '__proto__',
  'constructor',
  '',
  'RebalanceInProgress',
  'CoordinatorMoved',
  'error',
  'exception',
];
const CLIENT_RESERVED = new Set([
  'connect',
  'connect_error',
  'disconnect',
  'disconnecting',
  'newListener',
  'removeListener',
]);

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** A request that is valid (or nearly): the starting point of a mutation. */
function validPayload(random: SeededRandom, event: string, t: FuzzTargets): unknown {
  const ownGroup = `fz-${random.int(0, 4)}`;
  const groupId = random.weighted([
    [3, t.canaryGroup],
    [4, ownGroup],
    [1, randomString(random).slice(0, 300)],
  ]);
  const topic = random.pick([t.canaryTopic, 'fz-t', 'no-such-topic']);
  const memberId = random.pick(['', 'impostor', `m-${random.int(0, 9)}`]);
  const generationId = random.pick([-1, 0, 1, t.canaryGeneration, t.canaryGeneration + 1]);
  // A static member joining the canary would rebalance it legitimately; only dynamic joins aim at it.
  const groupInstanceId = groupId === t.canaryGroup ? null : random.pick([null, `i-${random.int(0, 3)}`]);
  const subscription = {
    topics: [topic],
    ownedPartitions: [{ topic, partitions: [0] }],
    generationId: 1,
    rackId: null,
    userData: { v: 1 },
  };
  switch (event) {
    case RequestEvent.FindCoordinator:
      return { key: groupId, keyType: 0 };
    case RequestEvent.Metadata:
      return { topics: random.chance(0.3) ? null : [topic] };
    case RequestEvent.JoinGroup:
      return {
        groupId,
        sessionTimeoutMs: random.pick([1_000, 3_000]),
        rebalanceTimeoutMs: random.pick([1_000, 3_000]),
        memberId,
        groupInstanceId,
        protocolType: random.pick(['consumer', 'consumer', 'connect']),
        protocols: [{ name: random.pick(['range', 'roundrobin', 'cooperative-sticky']), metadata: subscription }],
        reason: 'fuzz',
        serverAssignor: random.pick([null, null, 'range', 'no-such-assignor']),
      };
    case RequestEvent.SyncGroup:
      return {
        groupId,
        generationId,
        memberId,
        groupInstanceId,
        protocolType: 'consumer',
        protocolName: 'range',
        assignments: [{ memberId, assignment: { partitions: [{ topic, partitions: [0, 1] }], userData: null } }],
      };
    case RequestEvent.Heartbeat:
      return { groupId, generationId, memberId, groupInstanceId };
    case RequestEvent.LeaveGroup:
      return { groupId, members: [{ memberId, groupInstanceId, reason: 'fuzz' }] };
    case RequestEvent.OffsetCommit:
      return {
        groupId,
        generationId,
        memberId,
        groupInstanceId,
        topics: [
          {
            name: topic,
            partitions: [
              {
                partitionIndex: random.int(0, 3),
                committedOffset: random.int(-1, 1_000),
                committedLeaderEpoch: -1,
                committedMetadata: 'm',
              },
            ],
          },
        ],
      };
    case RequestEvent.OffsetFetch:
      return {
        groupId,
        topics: random.chance(0.3) ? null : [{ name: topic, partitionIndexes: [0, 1] }],
        requireStable: random.chance(0.5),
      };
    case RequestEvent.OffsetDelete:
      return { groupId, topics: [{ name: topic, partitions: [{ partitionIndex: 0 }] }] };
    case RequestEvent.DescribeGroups:
      return { groups: [groupId] };
    case RequestEvent.ListGroups:
      return { statesFilter: random.chance(0.5) ? ['Stable'] : [] };
    case RequestEvent.DeleteGroups:
      return { groupsNames: [groupId] };
    default:
      return randomValue(random);
  }
}

/** One socket.io request: a known event with a valid, mutated or random payload, or an unknown event. */
export function socketCase(random: SeededRandom, targets: FuzzTargets): SocketCase {
  const known = Object.values(RequestEvent);
  const event = random.weighted<() => string>([
    [20, () => random.pick(known)],
    [2, () => random.pick(UNKNOWN_EVENTS)],
    [1, () => randomString(random).slice(0, 100)],
  ])();
  if (CLIENT_RESERVED.has(event)) return { event: 'Foo', payload: undefined, withAck: true };
  const valid = validPayload(random, event, targets);
  const payload = random.weighted<() => unknown>([
    [3, () => valid],
    [10, () => mutate(random, valid)],
    [2, () => randomValue(random)],
    [1, () => nested(random, random.pick([100, 3_000]))],
    [1, () => undefined],
  ])();
  // A static member joining the canary would rebalance it legitimately (a mutation can make one up);
  // the fuzzer knows no member id of the canary, so whatever else it sends must leave it as it was.
  if (event === RequestEvent.JoinGroup && isRecord(payload)) {
    if (payload.groupId === targets.canaryGroup && payload.groupInstanceId != null) payload.groupInstanceId = null;
    // Kafka holds a JoinGroup for up to the group's rebalance timeout, which has no upper bound: keep the
    // fuzzer's own groups' timeouts short so that every ack is due within the runner's bound.
    if (typeof payload.rebalanceTimeoutMs === 'number' && payload.rebalanceTimeoutMs > MAX_FUZZ_REBALANCE_TIMEOUT_MS)
      payload.rebalanceTimeoutMs = MAX_FUZZ_REBALANCE_TIMEOUT_MS;
    if (
      payload.rebalanceTimeoutMs === undefined &&
      typeof payload.sessionTimeoutMs === 'number' &&
      payload.sessionTimeoutMs > MAX_FUZZ_REBALANCE_TIMEOUT_MS
    )
      payload.rebalanceTimeoutMs = MAX_FUZZ_REBALANCE_TIMEOUT_MS;
  }
  return { event, payload, withAck: random.chance(0.95) };
}
