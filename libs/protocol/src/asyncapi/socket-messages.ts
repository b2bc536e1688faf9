/**
 * Every socket.io event of the protocol as JSON Schemas: a request and its acknowledgement per
 * RequestEvent, and the server pushes. Keyed by the event maps' names, so an event added to
 * RequestEvent without a description here fails to compile. docs/protocol.md is the prose beside it.
 */
import type { RequestEventName } from '../events';
import { MAX_ID_LENGTH, MAX_REASON_LENGTH, MAX_TOPIC_NAME_LENGTH } from '../limits';
import { anyJson, arr, bool, int, type JsonSchema, nullable, obj, ref, response, str } from './json-schema';

export interface RequestMessage {
  summary: string;
  request: JsonSchema;
  response: JsonSchema;
}

const groupId = str('The group id.', { maxLength: MAX_ID_LENGTH });
const memberId = str("The member id the coordinator gave (empty on a new member's first JoinGroup).", {
  maxLength: MAX_ID_LENGTH,
});
const generationId = int('The generation the member belongs to (-1 for a simple consumer that is not a member).');
const groupInstanceId = nullable(
  str('Static membership (KIP-345): a stable id of this consumer instance.', {
    minLength: 1,
    maxLength: MAX_TOPIC_NAME_LENGTH,
  }),
);
const partitionIndex = int('Partition number.', { minimum: 0 });
const partitionErrors = arr(
  obj({
    name: str('Topic.'),
    partitions: arr(obj({ partitionIndex, errorCode: int('Per-partition error code (0 = NONE).') })),
  }),
);

export const REQUEST_MESSAGES: Record<RequestEventName, RequestMessage> = {
  FindCoordinator: {
    summary: "Locate the node that coordinates a group (the leader of the group's __consumer_offsets partition).",
    request: obj({ key: str('The group id.') }, { keyType: int('0 = group (the only type).', { enum: [0] }) }),
    response: response({
      nodeId: int('Coordinator node id.'),
      host: str(),
      port: int(),
      url: str('Connect here for the group requests.'),
      partition: int('The __consumer_offsets partition of the group.'),
    }),
  },
  Metadata: {
    summary:
      'Partition counts of topics from the topic registry, and the live nodes of the cluster (how a client given one URL learns the others).',
    request: obj({ topics: nullable(arr(str(), 'Topic names; null for every topic, [] for none.')) }),
    response: response({
      topics: arr(
        obj({
          name: str(),
          partitions: int('Partition count.'),
          errorCode: int('3 UNKNOWN_TOPIC_OR_PARTITION when unknown.'),
        }),
      ),
      nodes: arr(
        obj({ nodeId: int('Node id (NODE_ID).'), url: str("The node's advertised URL (ADVERTISED_URL).") }),
        "Every live node of the cluster, as Kafka's MetadataResponse lists its brokers.",
      ),
    }),
  },
  JoinGroup: {
    summary:
      'Join (or rejoin) a group. The ack is held until the join phase ends. A new dynamic member first gets 79 MEMBER_ID_REQUIRED with its memberId and joins again with it (KIP-394).',
    request: obj(
      {
        groupId,
        sessionTimeoutMs: int('Within GROUP_MIN/MAX_SESSION_TIMEOUT_MS, else 26 INVALID_SESSION_TIMEOUT.'),
        memberId,
        protocolType: str("'consumer' for consumer groups; others are opaque to the coordinator."),
        protocols: arr(
          obj({ name: str('Assignor (protocol) name, e.g. cooperative-sticky.'), metadata: ref('Subscription') }),
          'In order of preference; the group votes.',
        ),
      },
      {
        rebalanceTimeoutMs: int('How long the coordinator waits for members to rejoin; defaults to sessionTimeoutMs.'),
        groupInstanceId,
        reason: nullable(str('Why the member (re)joins, for the rebalance history.', { maxLength: MAX_REASON_LENGTH })),
        serverAssignor: nullable(
          str('Ask the coordinator to assign with this registered assignor (all members must name the same).'),
        ),
      },
    ),
    response: response({
      generationId: int(),
      protocolType: nullable(str()),
      protocolName: nullable(str('The chosen assignor.')),
      leader: str('Member id of the leader, who computes the assignment.'),
      skipAssignment: bool(
        'True when the leader must not assign (server-side assignment or a static leader rejoining unchanged).',
      ),
      memberId,
      members: arr(obj({ memberId, groupInstanceId, metadata: ref('Subscription') }), 'Only the leader receives them.'),
      assignment: ref('MemberAssignment'),
    }),
  },
  SyncGroup: {
    summary:
      "Complete a rebalance: the leader sends every member's assignment; each member receives its own. The ack is held until the leader's SyncGroup arrives.",
    request: obj(
      {
        groupId,
        generationId,
        memberId,
        assignments: arr(
          obj({ memberId, assignment: ref('MemberAssignment') }),
          'Only the leader sends assignments; others send [].',
        ),
      },
      { groupInstanceId, protocolType: nullable(str()), protocolName: nullable(str()) },
    ),
    response: response({
      protocolType: nullable(str()),
      protocolName: nullable(str()),
      assignment: ref('MemberAssignment'),
    }),
  },
  Heartbeat: {
    summary: 'Keep the membership alive; 27 REBALANCE_IN_PROGRESS tells the member to rejoin.',
    request: obj({ groupId, generationId, memberId }, { groupInstanceId }),
    response: response({}),
  },
  LeaveGroup: {
    summary: 'Leave the group at once (dynamic members; a static member that leaves is removed as well).',
    request: obj({ groupId, members: arr(obj({ memberId }, { groupInstanceId, reason: nullable(str()) })) }),
    response: response({ members: arr(obj({ memberId, groupInstanceId, errorCode: int() })) }),
  },
  OffsetCommit: {
    summary:
      'Commit offsets (the next offset to consume). Acknowledged only once the write is committed in the replicated log.',
    request: obj(
      {
        groupId,
        generationId,
        topics: arr(
          obj({
            name: str(),
            partitions: arr(
              obj(
                { partitionIndex, committedOffset: int('Next offset to consume.', { minimum: 0 }) },
                {
                  committedLeaderEpoch: int(undefined, { minimum: -1 }),
                  committedMetadata: nullable(str('At most OFFSET_METADATA_MAX_BYTES.')),
                },
              ),
            ),
          }),
        ),
      },
      { memberId, groupInstanceId },
    ),
    response: response({ topics: partitionErrors }),
  },
  OffsetFetch: {
    summary: 'Read committed offsets (-1 where nothing is committed).',
    request: obj(
      {
        groupId,
        topics: nullable(
          arr(obj({ name: str(), partitionIndexes: arr(int()) }), 'null for every committed offset of the group.'),
        ),
      },
      { requireStable: bool('Answer 88 UNSTABLE_OFFSET_COMMIT while a commit is pending.') },
    ),
    response: response({
      topics: arr(
        obj({
          name: str(),
          partitions: arr(
            obj({
              partitionIndex,
              committedOffset: int('-1 when none.'),
              committedLeaderEpoch: int(),
              metadata: nullable(str()),
              errorCode: int(),
            }),
          ),
        }),
      ),
    }),
  },
  OffsetDelete: {
    summary:
      'Delete committed offsets of topics the group no longer consumes (86 GROUP_SUBSCRIBED_TO_TOPIC otherwise).',
    request: obj({ groupId, topics: arr(obj({ name: str(), partitions: arr(obj({ partitionIndex })) })) }),
    response: response({ topics: partitionErrors }),
  },
  DescribeGroups: {
    summary: 'State, protocol and members of groups.',
    request: obj({ groups: arr(str()) }),
    response: response({
      groups: arr(
        obj({
          errorCode: int(),
          groupId: str(),
          groupState: str('Empty, PreparingRebalance, CompletingRebalance, Stable, Dead (or empty when unknown).'),
          protocolType: str(),
          protocolData: str('The chosen protocol (assignor) name.'),
          members: arr(
            obj({
              memberId,
              groupInstanceId,
              clientId: str(),
              clientHost: str(),
              memberMetadata: ref('Subscription'),
              memberAssignment: ref('MemberAssignment'),
            }),
          ),
        }),
      ),
    }),
  },
  ListGroups: {
    summary: 'Groups this node coordinates.',
    request: obj({}, { statesFilter: arr(str(), 'Only groups in these states.') }),
    response: response({ groups: arr(obj({ groupId: str(), protocolType: str(), groupState: str() })) }),
  },
  DeleteGroups: {
    summary: 'Delete Empty groups and their offsets (68 NON_EMPTY_GROUP, 69 GROUP_ID_NOT_FOUND per group).',
    request: obj({ groupsNames: arr(str()) }),
    response: response({ results: arr(obj({ groupId: str(), errorCode: int() })) }),
  },
};

export const PUSH_MESSAGES: Record<
  'RebalanceInProgress' | 'CoordinatorMoved',
  { summary: string; payload: JsonSchema }
> = {
  RebalanceInProgress: {
    summary:
      'Sent to every member as soon as its group starts preparing a rebalance: rejoin now (as on Heartbeat error 27) if the generation is yours.',
    payload: obj({
      groupId,
      generationId: int('The generation that is ending.'),
      reason: str('Why the group rebalances.'),
    }),
  },
  CoordinatorMoved: {
    summary:
      'This node stopped coordinating the group: find the coordinator again (as on 16 NOT_COORDINATOR), keeping member id and generation.',
    payload: obj({ groupId }),
  },
};

/** Shapes shared by several messages. */
export const SHARED_SCHEMAS: Record<string, JsonSchema> = {
  TopicPartitions: obj({ topic: str(), partitions: arr(int(undefined, { minimum: 0 })) }),
  Subscription: {
    ...obj(
      { topics: arr(str()) },
      {
        userData: anyJson("Assignor-specific data (e.g. sticky's previous assignment)."),
        ownedPartitions: arr(ref('TopicPartitions'), 'What the member holds now (cooperative protocol, KIP-429).'),
        generationId: int('Generation of ownedPartitions.'),
        rackId: nullable(str()),
      },
    ),
    description: "JoinGroup metadata for protocolType 'consumer'; opaque JSON for other protocol types.",
  },
  MemberAssignment: {
    ...obj({ partitions: arr(ref('TopicPartitions')) }, { userData: anyJson('Assignor-specific data.') }),
    description: "A member's assignment for protocolType 'consumer'; opaque JSON for other protocol types.",
  },
};
