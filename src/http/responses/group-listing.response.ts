import { ApiProperty } from '@nestjs/swagger';
import { GROUP_STATE_NAMES, type GroupListing, type GroupStateName } from '@cohort/protocol';

/** A row of `GET /v1/groups`. */
export class GroupListingResponse implements GroupListing {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({ type: String, nullable: true, example: 'consumer' })
  protocolType: string | null;

  @ApiProperty({ enum: GROUP_STATE_NAMES, example: 'Stable' })
  state: GroupStateName;

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
