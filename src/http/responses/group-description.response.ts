import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import {
  ANY_GROUP_STATE_NAMES,
  type AnyGroupStateName,
  type ConsumerMemberState,
  type GroupDescription,
  type GroupMemberDescription,
  type GroupType,
  type SharePartitionView,
  type TopicPartitions,
} from '@cohort/protocol';

class TopicPartitionsResponse implements TopicPartitions {
  @ApiProperty({ example: 'orders' })
  topic: string;

  @ApiProperty({ type: [Number], example: [0, 1] })
  partitions: number[];
}

class ShareOffsetCountsResponse {
  @ApiProperty({ example: 40, description: 'From SPSO up to the reported end, not leased.' })
  available: number;

  @ApiProperty({ example: 10, description: 'Leased to a member until its lock runs out.' })
  acquired: number;

  @ApiProperty({ example: 5 })
  acknowledged: number;

  @ApiProperty({ example: 1, description: 'Rejected, or delivered GROUP_SHARE_DELIVERY_COUNT_LIMIT times.' })
  archived: number;
}

class SharePartitionResponse implements SharePartitionView {
  @ApiProperty({ example: 'jobs' })
  topic: string;

  @ApiProperty({ example: 0 })
  partition: number;

  @ApiProperty({ example: 120, description: 'The share-partition start offset (SPSO): every offset below it is done.' })
  startOffset: number;

  @ApiProperty({ example: 176, description: 'The end offset producers reported.' })
  endOffset: number;

  @ApiProperty({ example: 0, description: 'Moves when SPSO moves back (a redelivery below it, an offset reset).' })
  stateEpoch: number;

  @ApiProperty({ type: () => ShareOffsetCountsResponse })
  offsets: ShareOffsetCountsResponse;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 4200,
    description: 'Age of the oldest lease held; null when none.',
  })
  oldestLeaseAgeMs: number | null;
}

class PartitionsResponse {
  @ApiProperty({ type: () => [TopicPartitionsResponse] })
  partitions: TopicPartitionsResponse[];
}

class GroupMemberResponse implements GroupMemberDescription {
  @ApiProperty({ example: 'billing-app-8c1d0f3e-…' })
  memberId: string;

  @ApiProperty({ type: String, nullable: true, example: null, description: 'Static members (KIP-345).' })
  groupInstanceId: string | null;

  @ApiProperty({ example: 'billing-app' })
  clientId: string;

  @ApiProperty({ example: '/10.0.0.7' })
  clientHost: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { topics: ['orders'] },
    description: 'For `consumer` groups a Subscription { topics, userData?, ownedPartitions? }; opaque otherwise.',
  })
  subscription: unknown;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    nullable: true,
    example: { partitions: [{ topic: 'orders', partitions: [0, 1, 2] }] },
    description:
      'For `consumer` protocol types a MemberAssignment { partitions: [{ topic, partitions }] }; opaque otherwise. For a consumer group (`type: consumer`), what the member holds now.',
  })
  assignment: unknown;

  @ApiPropertyOptional({
    example: 7,
    description: 'Consumer groups only: the epoch of the assignment the member holds.',
  })
  memberEpoch?: number;

  @ApiPropertyOptional({
    enum: ['STABLE', 'UNREVOKED_PARTITIONS', 'UNRELEASED_PARTITIONS', 'UNKNOWN'],
    description:
      'Consumer groups only: STABLE (holds its target, or waits for a newer one), UNREVOKED_PARTITIONS (must give partitions up first), UNRELEASED_PARTITIONS (waits for partitions another member still holds).',
  })
  memberState?: ConsumerMemberState;

  @ApiPropertyOptional({
    example: 1,
    description: 'Consumer groups only: 1, a member of the consumer protocol; 0, a classic member of a migrated group.',
  })
  memberType?: number;

  @ApiPropertyOptional({ type: String, nullable: true, description: 'Consumer groups only.' })
  rackId?: string | null;

  @ApiPropertyOptional({ type: [String], example: ['orders'], description: 'Consumer groups only.' })
  subscribedTopicNames?: string[];

  @ApiPropertyOptional({ example: '', description: "Consumer groups only: an RE2 pattern, '' for none." })
  subscribedTopicRegex?: string;

  @ApiPropertyOptional({
    type: () => PartitionsResponse,
    description: 'Consumer groups only: what the coordinator wants the member to hold at the assignment epoch.',
  })
  targetAssignment?: PartitionsResponse;

  @ApiPropertyOptional({
    type: () => [TopicPartitionsResponse],
    description: 'Consumer groups only: partitions the member holds but must give up before it gets new ones.',
  })
  partitionsPendingRevocation?: TopicPartitionsResponse[];
}

/** `GET /v1/groups/:groupId`. */
export class GroupDescriptionResponse implements GroupDescription {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({ enum: ['classic', 'consumer', 'share'], example: 'classic' })
  type: GroupType;

  @ApiProperty({
    enum: ANY_GROUP_STATE_NAMES,
    example: 'Stable',
    description: 'Classic states; a consumer group is Empty, Assigning, Reconciling or Stable.',
  })
  state: AnyGroupStateName;

  @ApiProperty({ type: String, nullable: true, example: 'consumer' })
  protocolType: string | null;

  @ApiProperty({ type: String, nullable: true, example: 'cooperative-sticky' })
  protocol: string | null;

  @ApiProperty({ example: 4 })
  generationId: number;

  @ApiProperty({ type: String, nullable: true, description: "The leader's member id." })
  leader: string | null;

  @ApiProperty({ type: Number, nullable: true, example: 0, description: "Node id of the group's coordinator." })
  coordinator: number | null;

  @ApiProperty({ example: 13, description: 'Its __consumer_offsets partition.' })
  coordinatorPartition: number;

  @ApiProperty({ type: () => [GroupMemberResponse] })
  members: GroupMemberResponse[];

  @ApiPropertyOptional({ example: 12, description: 'Consumer groups only: the group epoch (also `generationId`).' })
  groupEpoch?: number;

  @ApiPropertyOptional({
    example: 12,
    description: 'Consumer groups only: the group epoch the target assignment was computed at.',
  })
  assignmentEpoch?: number;

  @ApiPropertyOptional({
    example: 'uniform',
    description: "Consumer groups only: the server assignor (also `protocol`): the members' choice or the default.",
  })
  assignor?: string;

  @ApiPropertyOptional({
    type: () => [SharePartitionResponse],
    description: 'Share groups (`type: share`) only: each share partition with its offsets.',
  })
  sharePartitions?: SharePartitionResponse[];
}
