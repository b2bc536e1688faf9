import { ApiProperty } from '@nestjs/swagger';
import {
  GROUP_STATE_NAMES,
  type GroupDescription,
  type GroupMemberDescription,
  type GroupStateName,
} from '@cohort/protocol';

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
    description: 'For `consumer` groups a MemberAssignment { partitions: [{ topic, partitions }] }; opaque otherwise.',
  })
  assignment: unknown;
}

/** `GET /v1/groups/:groupId`. */
export class GroupDescriptionResponse implements GroupDescription {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({ enum: GROUP_STATE_NAMES, example: 'Stable' })
  state: GroupStateName;

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
}
