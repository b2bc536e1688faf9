import { ApiProperty } from '@nestjs/swagger';
import { ANY_GROUP_STATE_NAMES, type AnyGroupStateName, type GroupListing, type GroupType } from '@cohort/protocol';

/** A row of `GET /v1/groups`. */
export class GroupListingResponse implements GroupListing {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({
    enum: ['classic', 'consumer', 'share'],
    example: 'consumer',
    description: '`classic` (JoinGroup/SyncGroup) or `consumer` (ConsumerGroupHeartbeat, KIP-848).',
  })
  type: GroupType;

  @ApiProperty({ type: String, nullable: true, example: 'consumer' })
  protocolType: string | null;

  @ApiProperty({
    enum: ANY_GROUP_STATE_NAMES,
    example: 'Stable',
    description: 'Classic states; a consumer group is Empty, Assigning, Reconciling or Stable.',
  })
  state: AnyGroupStateName;

  @ApiProperty({ example: 2, description: 'Member count.' })
  members: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0,
    description: "Node id of the group's coordinator; null while its partition has no leader.",
  })
  coordinator: number | null;
}
