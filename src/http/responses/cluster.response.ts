import { ApiProperty } from '@nestjs/swagger';
import type { ClusterInfo, ClusterNode } from '@cohort/protocol';

class ClusterNodeResponse implements ClusterNode {
  @ApiProperty({ example: 0 })
  nodeId: number;

  @ApiProperty({ example: 'http://127.0.0.1:3000' })
  url: string;

  @ApiProperty({ example: true, description: 'Registered now.' })
  alive: boolean;
}

/** `GET /v1/cluster`. */
export class ClusterResponse implements ClusterInfo {
  @ApiProperty({ example: 'cohort' })
  clusterId: string;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 0,
    description: 'The node holding the controller lease; null while none does.',
  })
  controllerId: number | null;

  @ApiProperty({ type: () => [ClusterNodeResponse] })
  nodes: ClusterNodeResponse[];
}
