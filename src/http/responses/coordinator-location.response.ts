import { ApiProperty } from '@nestjs/swagger';
import type { CoordinatorLocation } from '@cohort/protocol';

/** `GET /v1/coordinator?groupId=`: as FindCoordinator answers. */
export class CoordinatorLocationResponse implements CoordinatorLocation {
  @ApiProperty({ example: 0, description: '0: NONE (an error is an HTTP error instead).' })
  errorCode: number;

  @ApiProperty({ example: 0 })
  nodeId: number;

  @ApiProperty({ example: '127.0.0.1' })
  host: string;

  @ApiProperty({ example: 3000 })
  port: number;

  @ApiProperty({ example: 'http://127.0.0.1:3000' })
  url: string;

  @ApiProperty({ example: 12, description: "The group's __consumer_offsets partition." })
  partition: number;
}
